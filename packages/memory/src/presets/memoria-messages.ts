import {
  CORE_MESSAGES_ES,
  type ErrorMessages,
  type MessageCatalogue,
  type MessageData,
} from '@lectern/core';
import {
  MAX_FRAGMENT_BYTES,
  MAX_FRAGMENT_LINES,
  MAX_QUERY_CHARS,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_OFFSET,
} from '../limits.js';

/** The memoria names of the native memory parameters and tools. */
export const MEMORIA_NAMES: Readonly<Record<string, string>> = {
  query: 'consulta',
  source: 'fuente',
  path_glob: 'patron_ruta',
  limit: 'limite',
  offset: 'desplazamiento',
  raw: 'sintaxis_fts',
  path: 'archivo',
  start_line: 'desde',
  end_line: 'hasta',
  full: 'completo',
  memory_search: 'buscar_memoria',
  memory_read_fragment: 'leer_fragmento',
  memory_list_sources: 'listar_fuentes',
  memory_reindex: 'reindexar',
};

const value = (d: MessageData) =>
  typeof d.details.value === 'string' || typeof d.details.value === 'number'
    ? ` (${JSON.stringify(d.details.value)})`
    : '';
const file = (d: MessageData) =>
  typeof d.details.path === 'string' ? `«${d.details.path}»` : 'el archivo pedido';
const near = (d: MessageData, what: string) =>
  d.suggestions.length > 0 ? ` En suggestions van ${what} más parecidos.` : '';
/** The parameter a source id came in: `path` for the fragment tool, `source` for search. */
const sourceParam = (d: MessageData) =>
  d.param(d.tool.endsWith(d.name('memory_read_fragment')) ? 'path' : 'source');

/** Spanish messages for the codes the memory store raises. */
const MEMORY_MESSAGES_ES: MessageCatalogue = {
  DB_PATH_INVALID: () =>
    'la base de datos de la memoria está dentro de una carpeta de notas y no es un índice de Lectern (se apartaría y se reemplazaría); ponla en la carpeta .lectern de esas notas o fuera de ellas.',
  EMPTY_QUERY: (d) =>
    `\`${d.param('query')}\` no tiene letras ni dígitos que buscar; escribe al menos una palabra.`,
  QUERY_TOO_LONG: (d) =>
    `\`${d.param('query')}\` es demasiado larga: se admiten ${MAX_QUERY_CHARS} caracteres como mucho.`,
  INVALID_QUERY: (d) =>
    `\`${d.param('query')}\` no es una expresión ${typeof d.details.syntax === 'string' ? d.details.syntax : 'FTS5'} válida; corrígela, o llama sin \`${d.name('raw')}\` para buscar las palabras tal cual.`,
  INVALID_LIMIT: (d) =>
    `\`${d.param('limit')}\`${value(d)} debe ser un número entero de 1 a ${MAX_SEARCH_LIMIT}.`,
  INVALID_OFFSET: (d) =>
    `\`${d.param('offset')}\`${value(d)} debe ser un número entero de 0 a ${MAX_SEARCH_OFFSET}; para seguir, usa el next_offset de la respuesta anterior.`,
  QUERY_TOO_COMPLEX: (d) =>
    `\`${d.param('query')}\` es demasiado compleja para una consulta en bruto: supera el límite ${typeof d.details.limit === 'string' ? d.details.limit : ''} (${typeof d.details.max === 'number' ? d.details.max : ''}); usa menos prefijos y un NEAR más corto, o llama sin \`${d.name('raw')}\`.`,
  QUERY_TOO_SLOW: (d) =>
    `\`${d.param('query')}\` se detuvo al pasar los ${typeof d.details.budget_ms === 'number' ? d.details.budget_ms : ''} ms de tiempo de una consulta en bruto; usa menos prefijos o un NEAR más corto, o llama sin \`${d.name('raw')}\`.`,
  INVALID_GLOB: (d) =>
    `\`${d.param('path_glob')}\`${value(d)} no es un patrón glob válido; omítelo o usa uno como «proyectos/**/*.md».`,
  UNKNOWN_SOURCE: (d) =>
    sourceParam(d) === d.name('path')
      ? `\`${sourceParam(d)}\`${value(d)} debe empezar por el id de una fuente y seguir con la ruta del archivo dentro de ella, como en las citas de ${d.name('memory_search')}.${near(d, 'las rutas')}`
      : `la fuente${value(d)} de \`${sourceParam(d)}\` no existe; ${d.name('memory_list_sources')} muestra los ids válidos.${near(d, 'los ids')}`,
  INVALID_PATH: (d) =>
    `\`${d.param('path')}\`${value(d)} no nombra un archivo: pasa «<fuente>/<ruta>» tal como lo da una cita de ${d.name('memory_search')}.`,
  NOT_INDEXED: (d) =>
    typeof d.details.reason === 'string'
      ? `${file(d)} no está indexado: la última reindexación no pudo indexarlo (${d.details.reason}).`
      : `${file(d)} no está en el índice de la memoria y solo se leen archivos indexados; usa una ruta de ${d.name('memory_search')}, o ejecuta ${d.name('memory_reindex')} si el archivo es nuevo.${near(d, 'las rutas indexadas')}`,
  FILE_DELETED: (d) =>
    `${file(d)} estaba indexado pero ya no existe en disco; ejecuta ${d.name('memory_reindex')} y vuelve a buscar.`,
  RANGE_TOO_LARGE: (d) => {
    const max = typeof d.details.max_lines === 'number' ? d.details.max_lines : MAX_FRAGMENT_LINES;
    const end = d.details.suggested_end_line;
    return `el rango pide más de ${max} líneas y cada lectura devuelve ${max} como mucho${typeof end === 'number' ? `; pide \`${d.name('end_line')}\` ${end} y continúa desde ahí` : ''}.`;
  },
  LINE_TOO_LONG: (d) =>
    `la línea ${typeof d.details.line === 'number' ? `${d.details.line} ` : ''}supera por sí sola los ${MAX_FRAGMENT_BYTES} bytes que puede devolver una lectura; solo se ve a través de los extractos de ${d.name('memory_search')}.`,
  INDEX_BUSY: () =>
    'otro proceso lleva demasiado tiempo actualizando el índice de la memoria; inténtalo de nuevo cuando termine.',
  INDEX_CORRUPT: (d) =>
    `la base de datos del índice está dañada; reinicia el servidor (al arrancar detecta el daño y la reconstruye) o borra el archivo${typeof d.details.db === 'string' ? ` ${d.details.db}` : ''}.`,
  DB_UNAVAILABLE: () =>
    'no se puede abrir ni crear la base de datos de la memoria; indica una ruta con permiso de escritura o, con PostgreSQL, revisa que el servidor responda y que la URL, el usuario y la contraseña sean correctos.',
  DB_DRIVER_MISSING: () =>
    'la memoria en PostgreSQL necesita el paquete `pg`, que no está instalado; instálalo junto a @lectern/memory o usa un archivo SQLite.',
  CANCELLED: () => 'la reindexación se canceló; el índice quedó como estaba.',
  STORE_CLOSED: () =>
    'la memoria está cerrada (el servidor se está deteniendo); vuelve a conectar.',
  SQLITE_UNAVAILABLE: () =>
    'el índice de la memoria necesita el módulo nativo better-sqlite3, que no está instalado o no se pudo cargar; instálalo junto a @lectern/memory (npm install better-sqlite3).',
  INVALID_OPTIONS: () =>
    'la configuración de la memoria no es válida; revisa las fuentes, sus ids y los límites.',
};

/**
 * What the memoria preset speaks in its errors: Spanish messages for every code its tools can
 * raise (the memory store's, and core's root guard, text and validation codes), with the preset's
 * parameter and tool names. Codes, suggestions and details stay as the native tools give them.
 */
export const MEMORIA_ERRORS: ErrorMessages = {
  locale: 'es',
  names: MEMORIA_NAMES,
  messages: { ...CORE_MESSAGES_ES, ...MEMORY_MESSAGES_ES },
};
