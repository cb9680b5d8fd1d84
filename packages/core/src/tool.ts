import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  isToolError,
  respellError,
  type Spelling,
  ToolError,
  type ToolErrorPayload,
} from './errors.js';
import { leanJsonSchema } from './json-schema.js';
import { type ErrorMessages, localizedMessage, localizeError } from './messages.js';
import {
  camelCase,
  type DerivedInput,
  type DerivedOutput,
  deriveInput,
  deriveOutput,
  type SurfaceFields,
} from './surface.js';

/** The four MCP tool annotations. Lectern tools always declare all of them. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A tool that only reads local data: no side effects, same answer for the same state. */
export const READ_ONLY: ToolAnnotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

/**
 * A tool that writes only its own derived state (an index), never the user's content: repeating
 * the call changes nothing more.
 */
export const DERIVED_WRITE: ToolAnnotations = Object.freeze({
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

/** A tool that changes or removes the user's content: each call is a new change. */
export const CONTENT_WRITE: ToolAnnotations = Object.freeze({
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
});

/** What a handler receives beside its input. */
export interface ToolContext {
  /** Aborted when the client cancels the request or the connection closes. */
  signal: AbortSignal;
  /**
   * Reports progress. Sends an MCP progress notification only when the client asked for one
   * (a `progressToken` in the request); otherwise does nothing.
   */
  progress: (progress: number, total?: number, message?: string) => Promise<void>;
}

/** Any zod object schema. */
// biome-ignore lint/suspicious/noExplicitAny: a schema of any shape
export type AnyObjectSchema = z.ZodObject<any>;

/** A tool as a plain value: metadata, zod schemas, annotations and a handler. */
export interface ToolDefinition<
  I extends AnyObjectSchema = AnyObjectSchema,
  O extends AnyObjectSchema = AnyObjectSchema,
> {
  /** Tool name, `snake_case`, unique within a server. */
  name: string;
  /** Short human title. */
  title: string;
  /** Written for an agent: what it does, when to use it and when not, behaviour, returns. */
  description: string;
  /** Input schema; every field carries `.describe()`. */
  inputSchema: I;
  /** Output schema; structured results are parsed with it before they are sent. */
  outputSchema: O;
  annotations: ToolAnnotations;
  /**
   * The language of this tool's error messages (a preset's locale): registration rewrites each
   * error it raises with this catalogue, keeping the code. Default: messages as raised.
   */
  errors?: ErrorMessages;
  /**
   * The text block of a result (default: the result's compact JSON), for a surface whose result
   * is one string field that clients read as the answer.
   */
  resultText?: (output: z.output<O>) => string;
  /**
   * Structured content of an error result, for a surface whose output schema can carry an error
   * (e.g. `{ result }` holding the error's JSON). Default: none, the text block only.
   */
  errorContent?: (payload: ToolErrorPayload) => Record<string, unknown>;
  /** Returns the result object, or throws `ToolError` for a user error. */
  handler: (input: z.output<I>, context: ToolContext) => Promise<z.input<O>> | z.input<O>;
}

/** A tool definition with its schema types erased, for lists of mixed tools. */
// biome-ignore lint/suspicious/noExplicitAny: erased handler types
export type AnyToolDefinition = ToolDefinition<any, any>;

/** Identity function that checks and infers a {@link ToolDefinition}. */
export function defineTool<I extends AnyObjectSchema, O extends AnyObjectSchema>(
  definition: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return definition;
}

/** Options of {@link registerTools}. */
export interface RegisterOptions {
  /** New names by original name, applied before the prefix. */
  rename?: Readonly<Record<string, string>>;
  /** Prepended to every name, e.g. `docs_`. */
  prefix?: string;
  /** Replacement descriptions by original tool name (a locale's texts). */
  descriptions?: Readonly<Record<string, string>>;
  /** Replacement titles by original tool name. */
  titles?: Readonly<Record<string, string>>;
  /** Receives unexpected exceptions (never sent to the client); defaults to stderr. */
  onUnexpectedError?: (error: unknown, toolName: string) => void;
}

const NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Names {@link registerTools} put on each server. Only the SDK's public API is used, so a server
 * from another copy of the SDK than ours (a consumer's own version) works the same.
 */
const registeredNames = new WeakMap<object, Set<string>>();

/** The final names tools will be registered under, checked for collisions and validity. */
export function resolveToolNames(
  tools: readonly AnyToolDefinition[],
  options: RegisterOptions = {},
): string[] {
  const names: string[] = [];
  const seen = new Map<string, string>();
  for (const tool of tools) {
    const renamed = options.rename?.[tool.name] ?? tool.name;
    const name = `${options.prefix ?? ''}${renamed}`;
    if (!NAME_RE.test(name)) {
      throw new Error(
        `tool name "${name}" is invalid: use 1 to 128 letters, digits, '_', '-' or '.'.`,
      );
    }
    const other = seen.get(name);
    if (other !== undefined) {
      throw new Error(
        `tool name "${name}" is used twice (by "${other}" and "${tool.name}"); rename one of them.`,
      );
    }
    seen.set(name, tool.name);
    names.push(name);
  }
  for (const from of Object.keys(options.rename ?? {})) {
    if (!tools.some((t) => t.name === from)) {
      throw new Error(
        `rename names unknown tool "${from}"; known tools: ${tools.map((t) => t.name).join(', ')}.`,
      );
    }
  }
  return names;
}

function textResult(payload: unknown, isError: boolean, tool?: AnyToolDefinition): CallToolResult {
  if (isError) {
    const text = JSON.stringify(payload);
    // An error result carries its JSON in the text block only (SDK clients validate any
    // structuredContent against the tool's output schema, even on errors), unless the tool
    // says how its output schema carries an error.
    const structured = tool?.errorContent?.(payload as ToolErrorPayload);
    return structured
      ? { content: [{ type: 'text', text }], structuredContent: structured, isError: true }
      : { content: [{ type: 'text', text }], isError: true };
  }
  return {
    content: [{ type: 'text', text: tool?.resultText?.(payload) ?? JSON.stringify(payload) }],
    structuredContent: payload as Record<string, unknown>,
  };
}

/**
 * Turns any thrown value into the error payload a client sees (no stack traces), in the language
 * of `errors` when given.
 */
export function errorPayload(
  error: unknown,
  toolName: string,
  errors?: ErrorMessages,
): ToolErrorPayload {
  const e = errors ? localizeError(error, errors, toolName) : error;
  if (isToolError(e)) return e.toJSON();
  return {
    error:
      (errors && localizedMessage('INTERNAL_ERROR', toolName, errors)) ??
      `${toolName} failed unexpectedly; the server logged the details. Try again, or report it if it persists.`,
    code: 'INTERNAL_ERROR',
  };
}

/**
 * Runs a tool the way registration does, without a server: parses the input, calls the handler
 * and parses the output. Resolves to the structured result or rejects with the handler's error.
 */
export async function invokeTool<T extends AnyToolDefinition>(
  tool: T,
  input: unknown,
  context: Partial<ToolContext> = {},
): Promise<z.output<T['outputSchema']>> {
  const args = tool.inputSchema.parse(input ?? {});
  try {
    const out = await tool.handler(args, {
      signal: context.signal ?? new AbortController().signal,
      progress: context.progress ?? (async () => {}),
    });
    return tool.outputSchema.parse(out);
  } catch (error) {
    throw tool.errors ? localizeError(error, tool.errors, tool.name) : error;
  }
}

/**
 * Registers tool definitions on an SDK `McpServer`. All names are resolved and checked first
 * (renames, prefix, collisions with each other and with tools already on the server), so a bad
 * set registers nothing. Each call's input is validated by the schema; a result is parsed with
 * the output schema and returned as `structuredContent` plus a text block with the same compact
 * JSON; a `ToolError` becomes an `isError: true` result whose text block is the JSON
 * `{ error, code, suggestions?, details? }` (no `structuredContent`, which SDK clients would
 * check against the output schema); any
 * other exception becomes a generic error result, is reported to `onUnexpectedError`, and the
 * server keeps serving. Returns the registered names, in order.
 */
export function registerTools(
  server: McpServer,
  tools: readonly AnyToolDefinition[],
  options: RegisterOptions = {},
): string[] {
  const names = resolveToolNames(tools, options);
  const taken = registeredNames.get(server) ?? new Set<string>();
  for (const name of names) {
    if (taken.has(name))
      throw new Error(`tool name "${name}" is already registered on this server.`);
  }
  const report =
    options.onUnexpectedError ??
    ((error: unknown, toolName: string) => {
      const full = error instanceof Error ? (error.stack ?? error.message) : String(error);
      // An error message can quote a request (a path of megabytes): keep the line short.
      const text = full.length > 4000 ? `${full.slice(0, 4000)}… [cut]` : full;
      process.stderr.write(`[lectern] unexpected error in ${toolName}: ${text}\n`);
    });
  const register = (name: string, tool: AnyToolDefinition): RegisteredTool =>
    server.registerTool(
      name,
      {
        title: options.titles?.[tool.name] ?? tool.title,
        description: options.descriptions?.[tool.name] ?? tool.description,
        // No JSON Schema noise in tools/list (`$schema`, safe-integer bounds), and the title
        // once: the tool's `title` is what clients show, so the annotations do not repeat it.
        inputSchema: leanJsonSchema(tool.inputSchema),
        outputSchema: leanJsonSchema(tool.outputSchema),
        annotations: { ...tool.annotations },
      },
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's callback types are generic over the schema
      (async (args: any, extra: any): Promise<CallToolResult> => {
        const token = extra?._meta?.progressToken;
        const context: ToolContext = {
          signal: extra?.signal ?? new AbortController().signal,
          progress: async (progress, total, message) => {
            if (token === undefined) return;
            await extra.sendNotification({
              method: 'notifications/progress',
              params: {
                progressToken: token,
                progress,
                ...(total === undefined ? {} : { total }),
                ...(message === undefined ? {} : { message }),
              },
            });
          },
        };
        try {
          const out = await tool.handler(args, context);
          const parsed = tool.outputSchema.safeParse(out);
          if (!parsed.success) {
            report(
              new Error(`output of ${name} does not match its schema: ${parsed.error.message}`),
              name,
            );
            return textResult(errorPayload(new Error('bad output'), name, tool.errors), true, tool);
          }
          return textResult(parsed.data, false, tool);
        } catch (error) {
          if (!isToolError(error)) report(error, name);
          return textResult(errorPayload(error, name, tool.errors), true, tool);
        }
        // biome-ignore lint/suspicious/noExplicitAny: see above
      }) as any,
    );
  const added: RegisteredTool[] = [];
  tools.forEach((tool, i) => {
    const name = names[i]!;
    let handle: RegisteredTool;
    try {
      handle = register(name, tool);
    } catch (error) {
      // A tool registered on the server by other code has this name (the SDK refuses it):
      // take back this call's earlier registrations, so a bad set registers nothing.
      for (const earlier of added) earlier.remove();
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(`could not register tool "${name}": ${why}`, { cause: error });
    }
    added.push(handle);
  });
  for (const name of names) taken.add(name);
  registeredNames.set(server, taken);
  return names;
}

/** How {@link adaptTool} maps a native tool onto another tool surface. */
export interface AdaptOptions<
  NI extends AnyObjectSchema,
  NO extends AnyObjectSchema,
  I extends AnyObjectSchema,
  O extends AnyObjectSchema,
> {
  name: string;
  title?: string;
  description: string;
  /** Overrides annotations; defaults to the native tool's. */
  annotations?: ToolAnnotations;
  /**
   * `camel`: this surface spells native snake_case names in camelCase: input and output fields
   * given without `from`, the parameter names error messages quote, and error detail keys.
   */
  case?: 'camel';
  /**
   * The surface's parameters, in order, each derived from a native one (see {@link FieldSpec}):
   * names, descriptions and modifiers only; types, limits and defaults come from the native
   * schema. Native parameters not listed are not offered (their native defaults apply).
   */
  input?: SurfaceFields;
  /** The surface's result fields, derived from the native result the same way. */
  output?: SurfaceFields;
  /** Native input values this surface always sends, for parameters it does not offer. */
  fixed?: Readonly<Record<string, unknown>>;
  /**
   * The last step from surface input to native input, for a surface parameter that has no one to
   * one native counterpart (its field has its own `schema`).
   */
  toNative?: (
    native: Record<string, unknown>,
    input: Record<string, unknown>,
  ) => Record<string, unknown>;
  /**
   * The surface returns its result as the JSON text of the `output` object in one string field
   * `key` (the text block is that JSON too), and an error's JSON in the same field.
   */
  resultAsJson?: { key: string; describe: string };
  /** Schema messages in the surface's language, e.g. `z.locales.es().localeError`. */
  schemaErrors?: z.core.$ZodErrorMap;
  /**
   * This surface's names for native tools and parameters that its error messages may quote
   * beyond its own inputs (e.g. sibling tools): `{ read_text: 'read_project_text' }`.
   */
  names?: Readonly<Record<string, string>>;
  /**
   * The language of the adapted tool's errors (see {@link ToolDefinition.errors}); its `names`
   * map native parameter names onto this surface's.
   */
  errors?: ErrorMessages;
  /** Escape hatch: a hand-made input schema (with `mapInput`) instead of `input`. */
  inputSchema?: I;
  /** Escape hatch: a hand-made output schema (with `mapOutput`) instead of `output`. */
  outputSchema?: O;
  /** With `inputSchema`: turns the adapted input into the native tool's input. */
  mapInput?: (input: z.output<I>) => z.input<NI>;
  /** With `outputSchema`: turns the native result into the adapted result. */
  mapOutput?: (output: z.output<NO>, input: z.output<I>) => z.input<O>;
}

/**
 * A tool that presents a native tool under another name, parameter spelling and result shape
 * (for presets). The surface is declared, not re-typed: `input` and `output` list the fields
 * with their names and descriptions, and their schemas are derived from the native ones, so
 * limits and defaults stay the native ones. The native handler does the work; its input is
 * re-validated with the native schema. Errors reach the client in the surface's names: a
 * message raised as a function of the names is spelled again with this surface's, and
 * `details.param` with it; with `errors`, the catalogue of that language writes the message.
 */
export function adaptTool<
  NI extends AnyObjectSchema,
  NO extends AnyObjectSchema,
  I extends AnyObjectSchema = AnyObjectSchema,
  O extends AnyObjectSchema = AnyObjectSchema,
>(native: ToolDefinition<NI, NO>, options: AdaptOptions<NI, NO, I, O>): ToolDefinition<I, O> {
  const derivedIn: DerivedInput | undefined = options.input
    ? deriveInput(
        native.inputSchema,
        { ...(options.case ? { case: options.case } : {}), fields: options.input },
        options.schemaErrors,
      )
    : undefined;
  const derivedOut: DerivedOutput | undefined = options.output
    ? deriveOutput(native.outputSchema, {
        ...(options.case ? { case: options.case } : {}),
        fields: options.output,
      })
    : undefined;
  const names: Record<string, string> = {
    [native.name]: options.name,
    ...derivedIn?.names,
    ...options.names,
    ...options.errors?.names,
  };
  const spell: Spelling = (n) => names[n] ?? (options.case === 'camel' ? camelCase(n) : n);
  const key: Spelling = options.case === 'camel' ? camelCase : (n) => n;
  const errors = options.errors ? { ...options.errors, names } : undefined;
  const json = options.resultAsJson;
  const inputSchema = (derivedIn?.schema ?? options.inputSchema ?? native.inputSchema) as I;
  const outputSchema = (
    json
      ? z.object({ [json.key]: z.string().describe(json.describe) })
      : (derivedOut?.schema ?? options.outputSchema ?? native.outputSchema)
  ) as O;
  const toNative = (input: Record<string, unknown>): Record<string, unknown> => {
    let out = derivedIn
      ? derivedIn.toNative(input)
      : options.mapInput
        ? (options.mapInput(input as z.output<I>) as Record<string, unknown>)
        : { ...input };
    out = { ...out, ...options.fixed };
    return options.toNative ? options.toNative(out, input) : out;
  };
  const fromNative = (output: z.output<NO>, input: z.output<I>): unknown => {
    const shaped = derivedOut
      ? derivedOut.fromNative(output as Record<string, unknown>)
      : options.mapOutput
        ? options.mapOutput(output, input)
        : output;
    return json ? { [json.key]: JSON.stringify(shaped) } : shaped;
  };
  return {
    name: options.name,
    title: options.title ?? native.title,
    description: options.description,
    inputSchema,
    outputSchema,
    annotations: options.annotations ?? native.annotations,
    ...(errors ? { errors } : {}),
    ...(json
      ? {
          resultText: (out: z.output<O>) => String((out as Record<string, unknown>)[json.key]),
          errorContent: (payload: ToolErrorPayload) => ({ [json.key]: JSON.stringify(payload) }),
        }
      : {}),
    handler: async (input, context) => {
      try {
        const parsedInput = native.inputSchema.safeParse(toNative(input));
        if (!parsedInput.success) {
          const issues = parsedInput.error;
          const params = [...new Set(issues.issues.map((i) => String(i.path[0] ?? '(input)')))];
          throw new ToolError(
            'INVALID_INPUT',
            (n) => `invalid input for ${n(native.name)}: ${describeZodError(issues, n)}`,
            { details: { params } },
          );
        }
        const out = native.outputSchema.parse(await native.handler(parsedInput.data, context));
        return fromNative(out, input) as z.input<O>;
      } catch (error) {
        // With a catalogue, registration writes the message in its language; here, the names.
        throw errors ? error : respellError(error, spell, key);
      }
    },
  };
}

/**
 * One line per problem: `path: message`, for error texts built from a zod error; `name` spells
 * the top-level parameter of each path (default: as the schema names it).
 */
export function describeZodError(error: z.ZodError, name: Spelling = (n) => n): string {
  return error.issues
    .map((issue) => {
      const [first, ...rest] = issue.path.map(String);
      const path = first === undefined ? '(input)' : [name(first), ...rest].join('.');
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}
