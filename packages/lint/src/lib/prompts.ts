import type { CoherenceJudgeInput, ToolJudgeInput } from './types.js';

/** Bumped whenever a prompt changes, so cached judgements from an older prompt are not reused. */
export const PROMPT_VERSION = 1;

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

Shadowing: a tool is at risk when a much cheaper sibling covers substantially the same purpose, so agents take the cheap call and skip the authoritative one. You get candidate pairs that are already structurally asymmetric, at most one per tool. Judge only those pairs, never invent others. Report a pair only when the purposes genuinely overlap; asymmetry alone is normal. An empty list is the usual answer. Shadowing is reported beside the four scores and must not change them.

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
