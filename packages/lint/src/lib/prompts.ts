import type { CoherenceJudgeInput, ToolJudgeInput } from './types.js';

/** Bumped whenever a prompt changes, so cached judgements from an older prompt are not reused. */
export const PROMPT_VERSION = 2;

/** System prompt for judging one tool definition (the TDQS rubric, in Lectern's words). */
export const TOOL_SYSTEM_PROMPT = `You grade MCP tool definitions for how well they let an AI agent pick the right tool and call it correctly.

The input is one tool: its name, title, description, input schema, annotations, a few counted facts about the schema, and the names of the other tools on the same server.

Grade six dimensions, each an integer from 1 to 5:

1. purpose_clarity (weight 25%): does the description say what the tool does?
   5 = a specific verb and resource, and it is clear how the tool differs from its siblings. 4 = clear, but siblings are not told apart. 3 = vague. 2 = only restates the name or title. 1 = missing or misleading.
2. usage_guidelines (20%): does it say when to use this tool rather than another?
   5 = states when to use it, when not to, and which sibling to use instead. 4 = clear context but no exclusions. 3 = usage only implied. 2 = no guidance. 1 = misleading guidance.
3. behavioral_transparency (20%): does it disclose behaviour beyond what the annotations already declare?
   With annotations the bar is lower: credit what they cannot express (what is destroyed or overwritten, auth, limits, rate limits, errors, pagination). Without annotations the description carries all of it.
   If the description contradicts the annotations, score 1 and set annotation_contradiction to true.
4. parameter_semantics (15%): does it add meaning the input schema does not already give?
   Schema description coverage above 80% sets a baseline of 3 even if the description says nothing about parameters. Below 50% the description has to make up for the schema. A tool with no parameters starts at 4.
5. conciseness_structure (10%): is it the right size, with the key point first, and does every sentence carry information? Too little text is under-specification, not conciseness.
6. contextual_completeness (10%): given how complex the tool is and how much the schema, annotations and output schema already say, is it complete enough to succeed on the first call? With an output schema, return values need no explanation.

Rules:
- Use the whole range. Most descriptions are average; keep 4 and 5 for genuinely helpful ones. 3 means adequate with clear gaps.
- Grade each dimension on its own.
- Base every score on specific text in the description and quote it in the justification.
- Repeating what the schema or annotations already state earns nothing: reward information density, not length.

Worked examples (use them to calibrate, not as templates):
- get_calls; annotations readOnlyHint=true, destructiveHint=false; 2 parameters, both described; no output schema.
  Description: "List ALL calls in date range – no user/workspace filtering. To filter by user/workspace, use search_calls_extensive instead."
  purpose 5 (verb, resource and scope, and the sibling boundary is drawn); usage 5 (the excluded case is routed to a named tool); behaviour 3 (the annotations carry safety, the text adds the date-range scope but nothing on paging or the result); parameters 3 (the schema documents both; the text adds no format); conciseness 5 (two sentences, nothing wasted); completeness 5 (enough for a filtered list with good annotations). TDQS 4.3, tier A.
- update_drive; no annotations; 4 parameters, half described; no output schema.
  Description: "Update shared drive settings including name, color, and restrictions."
  purpose 4 (clear verb, resource and fields); usage 2 (no when, no prerequisites); behaviour 2 (a mutation with no annotations, and nothing on permissions, reversibility, untouched settings or the response); parameters 3 (names some fields, leaves the undocumented half unexplained); conciseness 4 (one efficient sentence); completeness 2 (a mutation with no annotations, no output schema and thin parameters needs more). TDQS 2.9, tier C.
- process; no annotations; 3 parameters, none described.
  Description: "Process"
  purpose 1, usage 1, behaviour 1, parameters 1 (three undocumented parameters), conciseness 2 (too little text is under-specification), completeness 1. TDQS 1.1, tier D.
- create_record; annotations readOnlyHint=true. Description: "Creates a new record in the database"
  The text claims a write while the annotation declares read-only: behaviour 1 and annotation_contradiction true.

Reply with JSON only, exactly this shape:
{
  "scores": {
    "purpose_clarity": {"score": 1-5, "justification": "2-3 sentences quoting the evidence"},
    "usage_guidelines": {"score": 1-5, "justification": "..."},
    "behavioral_transparency": {"score": 1-5, "justification": "..."},
    "parameter_semantics": {"score": 1-5, "justification": "..."},
    "conciseness_structure": {"score": 1-5, "justification": "..."},
    "contextual_completeness": {"score": 1-5, "justification": "..."}
  },
  "annotation_contradiction": true or false,
  "summary": "2-3 sentences"
}`;

/** System prompt for judging a server's tool set as a whole (coherence and shadowing). */
export const SERVER_SYSTEM_PROMPT = `You grade whether the tools of one MCP server work well together as a set. Good individual descriptions can still add up to a confusing, inconsistent or incomplete set.

The input is the server name, the number of tools, every tool's name, description and invocation cost, and a list of candidate pairs for shadowing.

Grade four dimensions, each an integer from 1 to 5, equally weighted:

1. disambiguation: can an agent tell the tools apart? 5 = every tool has a distinct purpose. 4 = one or two could be confused. 3 = some overlap, but the descriptions help. 2 = several unclear boundaries. 1 = several tools seem to do the same thing.
2. naming_consistency: do the names follow one predictable pattern? 5 = one consistent verb_noun (or other) pattern. 4 = minor deviations. 3 = mixed but readable. 2 = inconsistent styles. 1 = no pattern. The convention matters less than sticking to one.
3. tool_count_appropriateness: is the number of tools right for the purpose? 5 = well scoped, usually 3-15. 4 = slightly over or under. 3 = borderline (1-2 thin, 16-25 heavy). 2 = too many (25+) or a single tool for a broad scope. 1 = extreme (50+, or one trivial tool).
4. completeness: are there gaps in the surface? 5 = the domain's lifecycle is covered with no dead ends. 4 = minor gaps. 3 = notable missing operations. 2 = gaps that will make agents fail. 1 = severely incomplete.

Shadowing: a tool is at risk when a much cheaper sibling covers substantially the same purpose, so agents take the cheap call and skip the authoritative one. You get candidate pairs that are already structurally asymmetric, at most one per tool. Judge only those pairs, never invent others, and use the exact names given. Report a pair only when the purposes genuinely overlap (an agent with a question the dearer tool answers could plausibly get an answer from the cheaper one); asymmetry alone is normal. When in doubt, leave the pair out; an empty list is the usual answer. Shadowing is reported beside the four scores: do not lower disambiguation because a pair was supplied, and do not raise it because you report none.

Worked examples (use them to calibrate, not as templates):
- github-mcp with list_repos, get_repo, create_repo, search_code, list_issues, create_issue, update_issue, get_pull_request, create_pull_request, merge_pull_request: disambiguation 5 (each tool is a distinct action on a distinct resource), naming 5 (verb_noun throughout), count 5 (10 well-scoped tools), completeness 4 (no review or comment tools, but the core flows are covered). Coherence 4.8.
- utility-toolkit with process, run, execute, do_thing, helper, transform_data, processV2, handleRequest: disambiguation 1 (process, run, execute and do_thing cannot be told apart), naming 2 (mixed styles, vague verbs), count 3 (8 tools is a reasonable number), completeness 2 (no clear domain to judge coverage against). Coherence 2.0.
- Candidate query_panel (cost 13) may be shadowed by get_stat (cost 4); get_stat "Return a single stat for a player and season.", query_panel runs a qualified, source-attributed query over a panel. Both answer "what is X for player Y" and neither description draws a boundary: report the pair, and score disambiguation 3 on the overlap alone.
- Candidate search_code (cost 8) may be shadowed by get_repo (cost 2); get_repo returns repository metadata and cannot answer a code search: costs differ but purposes do not overlap, so report nothing.

Reply with JSON only, exactly this shape:
{
  "scores": {
    "disambiguation": {"score": 1-5, "justification": "2-3 sentences"},
    "naming_consistency": {"score": 1-5, "justification": "..."},
    "tool_count_appropriateness": {"score": 1-5, "justification": "..."},
    "completeness": {"score": 1-5, "justification": "..."}
  },
  "shadowing_risks": [{"tool": "dearer tool name", "cheaper_sibling": "cheaper tool name", "justification": "1-2 sentences"}],
  "summary": "2-3 sentences"
}`;

/** The user message for one tool: the definition, the counted signals and the sibling names. */
export function toolUserMessage(input: ToolJudgeInput): string {
  const { tool, signals, siblingToolNames } = input;
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  return [
    `Tool name: ${tool.name}`,
    `Title: ${tool.title ?? 'null'}`,
    '',
    'Description:',
    `"${tool.description ?? ''}"`,
    '',
    '<input-schema>',
    tool.inputSchema ? json(tool.inputSchema) : '{}',
    '</input-schema>',
    '',
    '<annotations>',
    tool.annotations && Object.keys(tool.annotations).length
      ? json(tool.annotations)
      : 'none declared',
    '</annotations>',
    '',
    'Signals:',
    `- parameters: ${signals.paramCount}`,
    `- required parameters: ${signals.requiredParamCount}`,
    `- schema description coverage: ${signals.schemaDescriptionCoverage}%`,
    `- parameters with enums: ${signals.paramsWithEnums}`,
    `- has output schema: ${signals.hasOutputSchema}`,
    `- has nested objects: ${signals.hasNestedObjects}`,
    '',
    '<sibling-tools>',
    siblingToolNames.length ? siblingToolNames.join('\n') : 'none',
    '</sibling-tools>',
    '',
    'Reply with JSON only.',
  ].join('\n');
}

/** The user message for a server: every tool with its cost, and the shadow candidates. */
export function serverUserMessage(input: CoherenceJudgeInput): string {
  const tools = input.tools.map(
    (t) =>
      `- ${t.name} [cost ${t.invocationCost}: ${t.requiredFieldCount} required, depth ${t.schemaDepth}, ${t.unionChoiceCount} union choices]: ${t.description ?? '(no description)'}`,
  );
  const candidates = input.candidates.map(
    (c) =>
      `${c.tool} (cost ${c.invocationCost}) may be shadowed by ${c.cheaperSibling} (cost ${c.cheaperSiblingInvocationCost})`,
  );
  return [
    `Server name: ${input.serverName}`,
    `Tool count: ${input.tools.length}`,
    '',
    '<tools>',
    ...tools,
    '</tools>',
    '',
    '<shadow-candidates>',
    candidates.length ? candidates.join('\n') : 'none',
    '</shadow-candidates>',
    '',
    'Reply with JSON only.',
  ].join('\n');
}
