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

/** The English cut marker of memory_read_fragment (see fragments.ts). */
const CUT =
  / … \[line (\d+) cut: characters (\d+) to (\d+) of (\d+); continue at next_start_char\]$/;

/**
 * leer_fragmento keeps the seed's parameters (archivo, desde, hasta): it cannot read inside a
 * line. A line longer than one answer comes back cut, with a Spanish marker saying so and where
 * the rest can be found, and the read goes on at the next line (never the same line again).
 */
function leerOutput<T extends { content: string; start_line: number; total_lines: number }>(
  o: T & { next_start_char?: number | null },
): T {
  if (o.next_start_char === null || o.next_start_char === undefined) return o;
  const m = CUT.exec(o.content);
  const last = o.start_line >= o.total_lines;
  const next = last ? 'es la última línea' : `sigue con desde ${o.start_line + 1}`;
  const content = m
    ? `${o.content.slice(0, m.index)} … [línea ${m[1]} recortada: caracteres ${m[2]} a ${m[3]} de ${m[4]}; leer_fragmento no devuelve más de esta línea y buscar_memoria encuentra palabras del resto; ${next}]`
    : o.content;
  return { ...o, content, has_more: !last, next_start_line: last ? null : o.start_line + 1 };
}

/**
 * The `memoria` preset: the memory tools with Spanish names, parameters and descriptions
 * (`buscar_memoria`, `leer_fragmento`, `listar_fuentes`, `reindexar`), adapted from the native
 * tools with `adaptTool`, so limits, defaults and behaviour are the native ones. Result fields
 * keep their native (English) names; their descriptions are in Spanish.
 */
export function memoriaTools(store: MemoryStore): AnyToolDefinition[] {
  const limit = fieldLimits(memorySearchInput, 'limit');
  const buscar = adaptTool(memorySearchTool(store), {
    name: 'buscar_memoria',
    title: 'Buscar en la memoria',
    description: [
      'Busca palabras o frases en las notas indexadas y devuelve citas ordenadas por relevancia: archivo, líneas y un extracto resaltado.',
      'Úsala para saber en qué notas se menciona algo antes de abrir ninguna.',
      'No sirve para leer: abre las líneas citadas con leer_fragmento.',
      'Ignora mayúsculas y acentos; las comillas marcan una frase y un * final un prefijo. Por defecto la consulta se escapa sola; activa sintaxis_fts solo para OR, NEAR o filtros por encabezado. Acepta preguntas enteras: ordena por las palabras informativas, primero los fragmentos que tienen más.',
      'Nunca modifica tus notas: sin índice, la primera llamada lo construye en su propia base de datos, y stale marca los archivos editados desde la última reindexación. Sigue con next_offset.',
    ].join(' '),
    input: {
      consulta: {
        from: 'query',
        describe: `Una pregunta o las palabras a buscar: se ordena por sus palabras informativas (sin palabras vacías ni muy comunes), primero los fragmentos que tienen más y luego los que tienen alguna (match vale "any" si el primero no las tiene todas). Ignora mayúsculas, acentos y formas de la palabra (prueba encuentra pruebas). Entre comillas dobles forman una frase; con * al final buscan por prefijo (despl* encuentra despliegue). El resto de signos y las palabras AND, OR, NOT, NEAR son texto normal salvo con sintaxis_fts.`,
      },
      fuente: {
        from: 'source',
        describe:
          'Limita la búsqueda a esta fuente, con el id que muestra listar_fuentes; si se omite, busca en todas.',
      },
      patron_ruta: {
        from: 'path_glob',
        describe:
          'Limita la búsqueda a archivos cuya ruta cumple este glob, p. ej. "proyectos/**" o "**/2024-*.md"; se compara con la ruta dentro de la fuente y con "<fuente>/<ruta>". Por defecto, todos los archivos.',
      },
      limite: {
        from: 'limit',
        required: false,
        describe: `Cuántas citas trae cada página (por defecto ${limit.default}); súbelo para ver más resultados de una vez.`,
      },
      desplazamiento: {
        from: 'offset',
        required: false,
        describe:
          'Citas que se saltan; para la página siguiente usa el next_offset de la respuesta anterior.',
      },
      sintaxis_fts: {
        from: 'raw',
        required: false,
        describe:
          'true lee la consulta con la sintaxis propia del índice, con sus palabras reducidas a la raíz: SQLite FTS5 (AND/OR/NOT, NEAR(...), filtros title:, heading_path: o body:) o un tsquery de PostgreSQL; una expresión inválida falla con INVALID_QUERY. Por defecto false.',
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
      'Lee líneas numeradas de una nota indexada tal como está ahora en disco.',
      'Úsala después de buscar_memoria para ver una cita en su contexto sin cargar el archivo entero.',
      'No sirve para averiguar qué nota menciona algo: para eso está buscar_memoria.',
      'Pasa el archivo y el rango de la cita, o una ventana algo mayor; un rango por encima del máximo falla con RANGE_TOO_LARGE y next_start_line indica dónde seguir.',
      'Otra ruta falla con NOT_INDEXED y sugiere las más parecidas. stale indica que las líneas pueden haberse movido: ejecuta reindexar y vuelve a buscar.',
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
    mapOutput: leerOutput,
    errors: MEMORIA_ERRORS,
  });

  const listar = adaptTool(memoryListSourcesTool(store), {
    name: 'listar_fuentes',
    title: 'Listar fuentes de la memoria',
    description: [
      'Muestra cada carpeta de notas configurada con lo que el índice guarda de ella y cuántos de sus archivos son nuevos, cambiaron o se borraron desde la última indexación.',
      'Úsala para revisar la cobertura, obtener los ids que buscar_memoria acepta como fuente o decidir si hace falta reindexar.',
      'No sirve para encontrar contenido: usa buscar_memoria.',
      'Compara solo tamaño y fecha de modificación, sin leer los archivos, y no modifica nada; problems cuenta los archivos que la última reindexación no pudo incorporar.',
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
      'Actualiza el índice de la memoria con las carpetas de notas: agrega archivos nuevos, vuelve a fragmentar los modificados, sigue los renombrados y quita los borrados.',
      'Úsala después de editar notas o cuando listar_fuentes muestre cambios pendientes; la primera búsqueda construye el índice sin ella.',
      'No sirve para encontrar contenido.',
      'Se saltan los archivos con igual tamaño y fecha salvo con completo. Todo se confirma en una sola transacción, así que las búsquedas usan el índice anterior hasta que termina.',
      'Solo escribe la base del índice, nunca las notas. Los mensajes de error vienen en español, con códigos en inglés.',
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
