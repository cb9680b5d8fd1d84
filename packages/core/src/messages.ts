import { isToolError, respellError, ToolError } from './errors.js';

/** What a localized error message is built from: the error's code and data, never its text. */
export interface MessageData {
  /** The error code, e.g. `NOT_INDEXED`; it stays the same in every locale. */
  code: string;
  /** The tool the client called, under the name it sees. */
  tool: string;
  /**
   * The error's structured facts (`ToolError.details`). By convention `param` names the native
   * parameter at fault and `value` the value it got; other keys are specific to a code (e.g.
   * `max_lines`).
   */
  details: Readonly<Record<string, unknown>>;
  /** The error's suggestions (closest valid names), if any. */
  suggestions: readonly string[];
  /** This surface's spelling of a native parameter or tool name (the name itself if unmapped). */
  name: (native: string) => string;
  /** The parameter at fault in this surface's spelling: `details.param`, else `fallback`. */
  param: (fallback: string) => string;
}

/** Message builders by error code, for one locale. */
export type MessageCatalogue = Readonly<Record<string, (data: MessageData) => string>>;

/**
 * The language a tool surface speaks in its errors: a catalogue of messages by error code and
 * the surface's names for native parameters and tools. Set it on a tool definition (`errors`)
 * and registration rewrites every error the tool raises, keeping codes, suggestions and details.
 */
export interface ErrorMessages {
  /** BCP 47 language tag, e.g. `es`. */
  locale: string;
  /** Messages by error code; a code missing here keeps its original message. */
  messages: MessageCatalogue;
  /** This surface's names by native parameter or tool name, e.g. `{ path: 'archivo' }`. */
  names?: Readonly<Record<string, string>>;
}

/** The {@link MessageData} of an error code with its details, for a catalogue entry. */
export function messageData(
  code: string,
  tool: string,
  errors: ErrorMessages,
  details: Readonly<Record<string, unknown>> = {},
  suggestions: readonly string[] = [],
): MessageData {
  const name = (native: string) => errors.names?.[native] ?? native;
  return {
    code,
    tool,
    details,
    suggestions,
    name,
    param: (fallback) => name(typeof details.param === 'string' ? details.param : fallback),
  };
}

/**
 * The message `errors` gives for a code, or undefined when its catalogue has none (or the entry
 * fails: a message must never turn an error into a crash).
 */
export function localizedMessage(
  code: string,
  tool: string,
  errors: ErrorMessages,
  details?: Readonly<Record<string, unknown>>,
  suggestions?: readonly string[],
): string | undefined {
  const build = errors.messages[code];
  if (!build) return undefined;
  try {
    return build(messageData(code, tool, errors, details, suggestions));
  } catch {
    return undefined;
  }
}

/**
 * A `ToolError` rewritten in the language of `errors`: the same code, suggestions and cause,
 * the catalogue's message for its code, and details whose parameter names (`param`, `params`)
 * are spelled as the surface spells them. A code the catalogue lacks keeps its message, spelled
 * with the surface's names when it was raised as a function of them. Anything else is returned
 * unchanged.
 */
export function localizeError(error: unknown, errors: ErrorMessages, tool: string): unknown {
  if (!isToolError(error)) return error;
  const name = (native: string) => errors.names?.[native] ?? native;
  const respelled = respellError(error, name) as ToolError;
  const message = localizedMessage(
    error.code,
    tool,
    errors,
    error.details ?? {},
    error.suggestions ?? [],
  );
  if (message === undefined) {
    const same =
      respelled.message === error.message &&
      respelled.details?.param === error.details?.param &&
      JSON.stringify(respelled.details?.params) === JSON.stringify(error.details?.params);
    return same ? error : respelled;
  }
  return new ToolError(error.code, message, {
    suggestions: error.suggestions,
    details: respelled.details,
    cause: error,
  });
}

const q = (v: unknown) => (typeof v === 'string' ? `«${v}»` : String(v));
const see = (d: MessageData) =>
  d.suggestions.length > 0 ? ' Las opciones más parecidas van en suggestions.' : '';
const num = (v: unknown, otherwise: string) => (typeof v === 'number' ? String(v) : otherwise);

/**
 * Spanish messages for the codes `@lectern/core` raises (root guard, text decoding, pagination,
 * input validation and unexpected failures), for any surface that speaks Spanish.
 */
export const CORE_MESSAGES_ES: MessageCatalogue = {
  INVALID_INPUT: (d) => {
    const params = Array.isArray(d.details.params)
      ? d.details.params.map((p) => `\`${d.name(String(p))}\``).join(', ')
      : '';
    return `entrada no válida para ${d.tool}${params ? `: revisa ${params}` : ''}; la descripción de cada parámetro indica qué valores acepta.`;
  },
  INTERNAL_ERROR: (d) =>
    `${d.tool} falló de forma inesperada; el servidor registró los detalles. Vuelve a intentarlo y, si se repite, avisa del problema.`,
  PATH_INVALID: (d) =>
    `\`${d.param('path')}\` no es una ruta válida; usa una ruta relativa a la raíz, con / como separador.`,
  PATH_NUL: (d) => `\`${d.param('path')}\` contiene un carácter NUL; quítalo de la ruta.`,
  PATH_ABSOLUTE_OUTSIDE_ROOT: (d) =>
    `\`${d.param('path')}\` es una ruta absoluta fuera de la raíz configurada; pasa una ruta relativa a la raíz.`,
  PATH_ESCAPES_ROOT: (d) =>
    `\`${d.param('path')}\` sale de la raíz configurada (con ..); solo se aceptan rutas dentro de ella.`,
  PATH_SYMLINK: (d) =>
    `\`${d.param('path')}\` pasa por un enlace simbólico${typeof d.details.component === 'string' ? ` (${q(d.details.component)})` : ''}, y los enlaces no se siguen; usa la ruta real del archivo.`,
  PATH_SYMLINK_OUTSIDE_ROOT: (d) =>
    `\`${d.param('path')}\` pasa por un enlace simbólico${typeof d.details.component === 'string' ? ` (${q(d.details.component)})` : ''} que apunta fuera de la raíz; no se sigue.`,
  PATH_NOT_FOUND: (d) =>
    `\`${d.param('path')}\` no existe dentro de la raíz; comprueba la ruta (mayúsculas incluidas).${see(d)}`,
  PATH_IS_DIRECTORY: (d) => `\`${d.param('path')}\` es una carpeta, no un archivo.`,
  PATH_NOT_DIRECTORY: (d) =>
    `\`${d.param('path')}\` atraviesa un archivo como si fuera una carpeta; revisa la ruta.`,
  PATH_NOT_REGULAR: (d) =>
    `\`${d.param('path')}\` no es un archivo normal (es un dispositivo, FIFO o socket); no se lee.`,
  PATH_CHANGED: (d) =>
    `\`${d.param('path')}\` cambió en disco mientras se abría (se reemplazó o se movió); vuelve a intentarlo.`,
  PATH_TOO_LONG: (d) =>
    `\`${d.param('path')}\` es demasiado larga: como máximo ${num(d.details.max_path_bytes, '4096')} bytes en total y ${num(d.details.max_name_bytes, '255')} por nombre; usa una ruta más corta.`,
  PATH_RESERVED: (d) =>
    `\`${d.param('path')}\` apunta a la carpeta .lectern, donde Lectern guarda su propio estado (bloqueos, diarios, índices); nunca se sirve.`,
  PATH_NOT_ACCESSIBLE: (d) =>
    `no hay permiso para acceder a \`${d.param('path')}\`; revisa los permisos del archivo o elige otro.`,
  PATH_HARD_LINK: (d) =>
    `el archivo de \`${d.param('path')}\` tiene ${num(d.details.links, 'varios')} enlaces duros; otro de sus nombres podría estar fuera de la raíz, así que no se lee. Si esos enlaces son de confianza, sirve la raíz con los enlaces duros permitidos.`,
  STATE_DIR_INVALID: () =>
    'la carpeta de estado .lectern de la raíz es un enlace o un archivo; bórrala para que Lectern pueda guardar ahí su estado.',
  FILE_TOO_LARGE: (d) =>
    `el archivo ocupa ${num(d.details.size, 'más de')} bytes y el límite es ${num(d.details.max_bytes, 'menor')} bytes; no se lee.`,
  BINARY_CONTENT: (d) =>
    `el archivo contiene un byte NUL${typeof d.details.offset === 'number' ? ` en la posición ${d.details.offset}` : ''}, así que se trata como binario y no como texto.`,
  INVALID_UTF8: (d) =>
    `el archivo no es UTF-8 válido${typeof d.details.offset === 'number' ? `: secuencia incorrecta en el byte ${d.details.offset}` : ''}.`,
  OFFSET_OUT_OF_RANGE: (d) =>
    `\`${d.param('offset')}\` queda fuera del texto${typeof d.details.total_chars === 'number' ? `: los valores válidos van de 0 a ${d.details.total_chars}` : ''}.`,
  INVALID_LIMIT: (d) => `\`${d.param('limit')}\` tiene un valor fuera del rango permitido.`,
  INVALID_RANGE: (d) =>
    `el rango de líneas no es válido: \`${d.name('start_line')}\` y \`${d.name('end_line')}\` son números enteros desde 1, y el final no puede quedar antes del inicio.`,
  LINE_OUT_OF_RANGE: (d) =>
    `la línea inicial queda después del final del archivo${typeof d.details.total_lines === 'number' ? `, que tiene ${d.details.total_lines} líneas` : ''}.`,
  LINE_TOO_LONG: (d) =>
    `la línea ${num(d.details.line, '')} supera por sí sola los ${num(d.details.max_bytes, '')} bytes que puede devolver una lectura.`.replace(
      /\s{2,}/g,
      ' ',
    ),
  TAIL_TOO_LARGE: (d) =>
    `las últimas líneas pedidas ocupan ${num(d.details.bytes, 'más de')} bytes, por encima del límite de ${num(d.details.max_bytes, '')} bytes; pide menos líneas.`,
  OUTPUT_TOO_LARGE: (d) =>
    `la entrada ${num(d.details.offset, '')} de la lista ocupa por sí sola ${num(d.details.bytes, 'más de')} bytes de JSON, más que los ${num(d.details.max_bytes, '')} bytes que caben en una respuesta; pasa \`${d.name('offset')}\` ${num(d.details.next_offset, '')} para seguir después de ella.`.replace(
      /\s{2,}/g,
      ' ',
    ),
  VERSION_MISMATCH: (d) =>
    `la versión indicada ya no es la actual${typeof d.details.current_version === 'string' ? ` (ahora es ${d.details.current_version})` : ''}: el contenido cambió. Vuelve a leerlo y reintenta con la versión actual.`,
  ROOT_EMPTY: () => 'la raíz configurada está vacía; indica una carpeta.',
  ROOT_INVALID: () => 'la raíz configurada no es válida; indica una carpeta existente.',
  ROOT_MISSING: () => 'la carpeta raíz configurada no existe.',
  ROOT_NOT_DIRECTORY: () => 'la raíz configurada es un archivo, no una carpeta.',
  LIMIT_UNKNOWN: () =>
    'la configuración nombra un límite que no existe (va en details.param); revisa su nombre.',
  LIMIT_INVALID: () =>
    'un límite de la configuración (va en details.param) debe ser un número entero positivo, no mayor que su valor por defecto.',
  INVALID_GLOB: (d) =>
    `\`${d.param('glob')}\` no es un patrón glob válido (vacío, con NUL o con un extglob como «*(…)»); usa «*», «?», «[abc]», «{a,b}» y «**».`,
  GLOB_TOO_COMPLEX: (d) =>
    `\`${d.param('glob')}\` es demasiado complejo: supera el límite ${typeof d.details.limit === 'string' ? d.details.limit : ''} de ${num(d.details.max, '')}; usa un patrón más corto o varios más simples.`.replace(
      /\s{2,}/g,
      ' ',
    ),
};
