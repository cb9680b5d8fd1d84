import {
  type AnyToolDefinition,
  adaptTool,
  fieldLimits,
  localizedMessage,
  READ_ONLY,
} from '@lectern/core';
import { z } from 'zod';
import {
  fragmentOutputSchema,
  reindexOutputSchema,
  searchOutputSchema,
  sourcesOutputSchema,
} from '../lib/schemas.js';
import { MAX_FRAGMENT_LINES } from '../limits.js';
import { memoryListSourcesTool } from '../tools/list-sources.js';
import { memoryReadFragmentTool } from '../tools/read-fragment.js';
import { memoryReindexTool } from '../tools/reindex.js';
import { memorySearchInput, memorySearchTool } from '../tools/search.js';
import type { MemoryStore } from '../types.js';
import { MEMORIA_ERRORS } from './memoria-messages.js';

/** Spanish messages for the schema checks of the preset's own parameters. */
const es = z.locales.es().localeError;

/**
 * The `memoria` preset: the memory tools with Spanish names, parameters and descriptions
 * (`buscar_memoria`, `leer_fragmento`, `listar_fuentes`, `reindexar`), adapted from the native
 * tools with `adaptTool`, so limits, defaults and behaviour are the native ones. Result fields
 * keep their native (English) names; their descriptions are in Spanish.
 */
export function memoriaTools(store: MemoryStore): AnyToolDefinition[] {
  const query = fieldLimits(memorySearchInput, 'query');
  const limit = fieldLimits(memorySearchInput, 'limit');
  const offset = fieldLimits(memorySearchInput, 'offset');
  const buscar = adaptTool(memorySearchTool(store), {
    name: 'buscar_memoria',
    title: 'Buscar en la memoria',
    description: [
      'Busca palabras o frases en las notas indexadas (Markdown y texto de las fuentes configuradas) y devuelve citas ordenadas por relevancia: archivo, líneas y un extracto resaltado de cada fragmento.',
      'Úsala para ubicar dónde se habla de algo y luego abre solo esas líneas con leer_fragmento, en vez de leer archivos completos; para ver las fuentes o si hay cambios sin indexar, usa listar_fuentes. consulta lleva las palabras; fuente (un id de listar_fuentes) y patron_ruta acotan dónde buscar.',
      'No distingue mayúsculas ni acentos (cafe encuentra café); las "comillas" buscan una frase exacta y un * final busca por prefijo; los demás operadores se tratan como texto salvo con sintaxis_fts.',
      'Si ningún fragmento contiene todos los términos, devuelve los que tengan alguno y match vale "any".',
      'La primera llamada construye el índice si nunca se creó; los resultados reflejan la última reindexación y stale: true marca archivos editados después (ejecuta reindexar). Hasta 50 citas por página; continúa con next_offset. Una fuente desconocida falla con UNKNOWN_SOURCE y sugiere los ids válidos; una expresión FTS inválida con sintaxis_fts falla con INVALID_QUERY.',
    ].join(' '),
    input: {
      consulta: {
        from: 'query',
        describe: `Palabras a buscar, de 1 a ${query.max} caracteres (hasta 32 términos). Ignora mayúsculas y acentos. Entre comillas dobles forman una frase exacta; con * al final buscan por prefijo (despl* encuentra despliegue). El resto de signos y las palabras AND, OR, NOT, NEAR son texto normal salvo con sintaxis_fts.`,
      },
      fuente: {
        from: 'source',
        describe:
          'Limita la búsqueda a esta fuente, con el id que muestra listar_fuentes. Por defecto busca en todas.',
      },
      patron_ruta: {
        from: 'path_glob',
        describe:
          'Limita la búsqueda a archivos cuya ruta cumple este glob, p. ej. "proyectos/**" o "**/2024-*.md"; se compara con la ruta dentro de la fuente y con "<fuente>/<ruta>". Por defecto, todos los archivos.',
      },
      limite: {
        from: 'limit',
        required: false,
        describe: `Cantidad de citas por página, de 1 a ${limit.max}. Por defecto ${limit.default}.`,
      },
      desplazamiento: {
        from: 'offset',
        required: false,
        describe: `Citas que se saltan, de 0 a ${offset.max}. Por defecto 0; para la página siguiente usa el next_offset de la respuesta anterior.`,
      },
      sintaxis_fts: {
        from: 'raw',
        required: false,
        describe:
          'true envía la consulta a SQLite FTS5 sin escapar (AND/OR/NOT, NEAR(...), filtros heading_path: o body:); una expresión inválida falla con INVALID_QUERY. Por defecto false.',
      },
    },
    schemaErrors: es,
    outputSchema: searchOutputSchema('es'),
    annotations: READ_ONLY,
    mapOutput: (o) => o,
    errors: MEMORIA_ERRORS,
  });

  const leer = adaptTool(memoryReadFragmentTool(store), {
    name: 'leer_fragmento',
    title: 'Leer fragmento',
    description: [
      'Lee líneas numeradas de una nota indexada tal como está hoy en disco. Úsala después de buscar_memoria para ver el contexto de una cita sin cargar el archivo completo; para encontrar en qué nota está algo, usa buscar_memoria, no esta herramienta.',
      `Pasa la ruta de la cita con su rango (desde, hasta) o una ventana un poco más amplia; sin rango entrega las primeras ${MAX_FRAGMENT_LINES} líneas.`,
      `Cada llamada trae como mucho ${MAX_FRAGMENT_LINES} líneas (y 256 KB) y un rango mayor falla con RANGE_TOO_LARGE; has_more y next_start_line indican dónde seguir.`,
      'Solo abre archivos del índice: otra ruta falla con NOT_INDEXED y sugiere las rutas indexadas más parecidas, un archivo borrado después de indexar falla con FILE_DELETED y un desde posterior al final falla con LINE_OUT_OF_RANGE.',
      'stale: true indica que el archivo cambió tras indexarse y las líneas citadas pueden haberse movido; ejecuta reindexar y busca otra vez.',
    ].join(' '),
    input: {
      archivo: {
        from: 'path',
        describe:
          'Archivo a leer en la forma "<fuente>/<ruta>", copiado de una cita de buscar_memoria (p. ej. "notas/proyectos/alfa.md"). Se rechazan las rutas que no están en el índice.',
      },
      desde: {
        from: 'start_line',
        describe: `Número de la primera línea que se devuelve, contando desde 1. Por defecto 1, o hasta - ${MAX_FRAGMENT_LINES - 1} si solo se indica hasta. Normalmente el start_line de la cita (o algo antes, para tener contexto).`,
      },
      hasta: {
        from: 'end_line',
        describe: `Número de la última línea que se devuelve, incluida; como mucho desde + ${MAX_FRAGMENT_LINES - 1} (${MAX_FRAGMENT_LINES} líneas por llamada). Por defecto desde + ${MAX_FRAGMENT_LINES - 1}, recortado al final del archivo. Normalmente el end_line de la cita.`,
      },
    },
    schemaErrors: es,
    outputSchema: fragmentOutputSchema('es'),
    annotations: READ_ONLY,
    mapOutput: (o) => o,
    errors: MEMORIA_ERRORS,
  });

  const listar = adaptTool(memoryListSourcesTool(store), {
    name: 'listar_fuentes',
    title: 'Listar fuentes de la memoria',
    description: [
      'Enumera las carpetas de notas configuradas con lo que el índice guarda de cada una (archivos, fragmentos, bytes, fecha de la última indexación) y cuántos archivos son nuevos, cambiaron o se borraron en disco desde entonces.',
      'Úsala para revisar la cobertura, obtener los ids que buscar_memoria acepta como fuente o decidir si hace falta reindexar; para encontrar contenido usa buscar_memoria.',
      'Solo consulta metadatos de los archivos, sin leerlos ni calcular hashes, así que "changed" significa que cambió el tamaño o la fecha de modificación; problems cuenta archivos que la última reindexación no pudo indexar (reindexar los detalla con el motivo).',
      'warnings avisa si la base de datos estaba dañada y se reemplazó. No recibe parámetros ni modifica nada.',
    ].join(' '),
    input: {},
    outputSchema: sourcesOutputSchema('es'),
    annotations: READ_ONLY,
    mapOutput: (o) => o,
    errors: MEMORIA_ERRORS,
  });

  const reindexar = adaptTool(memoryReindexTool(store), {
    name: 'reindexar',
    title: 'Reindexar la memoria',
    description: [
      'Actualiza el índice de la memoria con las carpetas de notas: agrega archivos nuevos, vuelve a fragmentar los modificados, sigue los renombrados y quita los borrados; se saltan los que no cambiaron de tamaño ni de fecha.',
      'Úsala después de editar notas o cuando listar_fuentes muestre cambios pendientes; no hace falta antes de la primera búsqueda, porque buscar_memoria construye el índice si no existe. buscar_memoria sigue respondiendo con el índice anterior hasta que termina, porque todos los cambios se confirman en una sola transacción.',
      'completo (por defecto false) descarta el índice y relee todo: actívalo solo si los resultados parecen incorrectos.',
      'Los archivos que no se pueden indexar (UTF-8 inválido, binarios, más grandes que el límite) quedan fuera y aparecen en errors, sin que falle la llamada.',
      'Envía notificaciones de progreso si el cliente las pide; falla con INDEX_BUSY si otro proceso ocupa el índice más de un minuto. Solo escribe la base del índice, nunca las notas. Los errores y sus mensajes vienen en español, con códigos en inglés.',
    ].join(' '),
    input: {
      completo: {
        from: 'full',
        required: false,
        describe:
          'true descarta el índice y relee todos los archivos; por defecto false, que solo lee los archivos cuyo tamaño o fecha de modificación cambió.',
      },
    },
    schemaErrors: es,
    outputSchema: reindexOutputSchema('es'),
    // Files the reindex could not index carry a code: their reasons are given in Spanish too.
    mapOutput: (o) => ({
      ...o,
      errors: o.errors.map((e) => ({
        ...e,
        message:
          localizedMessage(e.code, 'reindexar', MEMORIA_ERRORS, { path: e.path }) ?? e.message,
      })),
    }),
    errors: MEMORIA_ERRORS,
  });

  return [buscar, leer, listar, reindexar];
}
