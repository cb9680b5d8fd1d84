import { z } from 'zod';

/** Locales the memory tools are written in. */
export type MemoryLocale = 'en' | 'es';

const T = {
  en: {
    warnings:
      'Notes about the index itself: built on first use, a damaged database replaced, a source with no files. Empty when all is well.',
    results: 'Matching chunks, best first.',
    c_path:
      'File of the citation as `<source id>/<path in the source>`; pass it unchanged to memory_read_fragment.',
    c_source: 'Id of the source the file belongs to.',
    c_start: 'First line of the matching chunk, 1-based.',
    c_end: 'Last line of the matching chunk, 1-based, inclusive.',
    c_heading: 'Headings above the chunk, outermost first, joined with " > "; empty when none.',
    c_snippet: 'Short excerpt of the chunk with matched words between « and ».',
    c_score: 'BM25 relevance, higher is better; only comparable within one query.',
    c_version: 'SHA-256 of the file when it was indexed.',
    c_stale:
      'True when the file has been modified or deleted since it was indexed; run memory_reindex for exact lines.',
    match:
      '"all": the first result holds every word searched for; "any": it holds only some of them (results are ranked by how many and how rare); "raw": the query ran in the index\'s own syntax.',
    fts: 'What was ranked: the informative words of the query as index terms (stems), quoted; stop words and very common words are left out. Useful to refine a query.',
    next_offset: 'Pass as offset to get the next page; null when there are no more results.',
    f_path: 'The file read, `<source id>/<path>`.',
    f_source: 'Id of the source the file belongs to.',
    f_start: 'First line returned, 1-based.',
    f_end: 'Last line returned, inclusive; start_line - 1 when nothing was returned (empty file).',
    f_total: 'Number of lines in the file now.',
    f_content: 'The lines, each as "<number>\\t<text>", joined with newlines.',
    f_more: 'True when the file continues after end_line.',
    f_next: 'Line to pass as start_line to continue, or null at the end of the file.',
    f_version: 'SHA-256 of the file as it is now.',
    f_indexed: 'SHA-256 of the file when it was indexed.',
    f_stale:
      'True when the file changed after it was indexed: citations may point at moved lines; run memory_reindex and search again.',
    built: 'True once the index has been built at least once.',
    sources: 'One entry per configured source, in configuration order.',
    s_id: 'Source id: the first segment of every path in this source.',
    s_include: 'Globs of files indexed from this source.',
    s_exclude: 'Globs of files and folders skipped in this source.',
    s_files: 'Files of this source in the index.',
    s_chunks: 'Chunks of this source in the index.',
    s_bytes: 'Total size of those files in bytes.',
    s_indexed: 'When this source was last indexed (ISO 8601 UTC), or null if never.',
    s_pending:
      'Differences between the folder now and the index, judged by size and modification time.',
    s_new: 'Files on disk that are not indexed yet.',
    s_changed: 'Indexed files whose size or modification time changed.',
    s_deleted: 'Indexed files that no longer exist.',
    s_problems:
      'Files the last reindex could not index (invalid UTF-8, binary, too large); memory_reindex lists them.',
    r_full: 'True when every file was re-read.',
    r_added: 'Files indexed for the first time.',
    r_updated: 'Files whose content changed and that were re-chunked.',
    r_renamed: 'Files moved or renamed with identical content; their chunks were kept.',
    r_removed: 'Files dropped from the index: deleted, excluded, or no longer readable as text.',
    r_unchanged: 'Files left as they were.',
    r_errors: 'Files that could not be indexed; they are not searchable until fixed.',
    e_path: 'The file, `<source id>/<path>`.',
    e_code: 'Reason: INVALID_UTF8, BINARY_CONTENT, FILE_TOO_LARGE or a path-guard code.',
    e_message: 'What was wrong, in words.',
    r_files: 'Files in the index afterwards.',
    r_chunks: 'Chunks in the index afterwards.',
    r_duration: 'How long the reindex took, in milliseconds.',
    u_object:
      'Entries left out because their names are not valid UTF-8, so no request can name them; never silently skipped. Rename them to index them.',
    u_count: 'How many entries were left out.',
    u_names:
      'Their paths (the first 20), each invalid byte shown as \\xHH; a folder ends in / and was not entered.',
    r_u_names:
      'Their paths as `<source id>/<path>` (the first 20), each invalid byte shown as \\xHH; a folder ends in / and was not entered.',
  },
  es: {
    warnings:
      'Avisos sobre el índice: creado en el primer uso, base de datos dañada y reemplazada, fuente sin archivos. Vacío si todo está bien.',
    results: 'Fragmentos que coinciden, del más relevante al menos.',
    c_path:
      'Archivo citado como `<fuente>/<ruta en la fuente>`; pásalo tal cual a leer_fragmento como archivo.',
    c_source: 'Id de la fuente a la que pertenece el archivo.',
    c_start: 'Primera línea del fragmento citado, contando desde 1.',
    c_end: 'Última línea del fragmento citado, incluida.',
    c_heading:
      'Encabezados que contienen el fragmento, del exterior al interior, unidos con " > ".',
    c_snippet: 'Extracto breve con las palabras encontradas entre « y ».',
    c_score: 'Relevancia BM25, mayor es mejor; solo comparable dentro de una misma consulta.',
    c_version: 'SHA-256 del archivo cuando se indexó.',
    c_stale:
      'true si el archivo se modificó o borró después de indexarse; ejecuta reindexar para tener líneas exactas.',
    match:
      '"all": el primer resultado tiene todas las palabras buscadas; "any": solo tiene algunas (se ordena por cuántas y cuán raras); "raw": la consulta se ejecutó con la sintaxis propia del índice.',
    fts: 'Lo que se ordenó: las palabras informativas de la consulta como términos del índice (raíces), entre comillas; sin palabras vacías ni muy comunes. Útil para afinar la consulta.',
    next_offset:
      'Valor para desplazamiento en la página siguiente; null cuando no hay más resultados.',
    f_path: 'Archivo leído, `<fuente>/<ruta>`.',
    f_source: 'Id de la fuente del archivo.',
    f_start: 'Primera línea devuelta, contando desde 1.',
    f_end:
      'Última línea devuelta, incluida; start_line - 1 si no se devolvió nada (archivo vacío).',
    f_total: 'Cantidad de líneas que tiene el archivo ahora.',
    f_content: 'Las líneas, cada una como "<número>\\t<texto>", separadas por saltos de línea.',
    f_more: 'true si el archivo sigue después de end_line.',
    f_next: 'Valor para desde en la llamada siguiente, o null al final del archivo.',
    f_version: 'SHA-256 del archivo tal como está ahora.',
    f_indexed: 'SHA-256 del archivo cuando se indexó.',
    f_stale:
      'true si el archivo cambió después de indexarse: las citas pueden apuntar a líneas movidas; ejecuta reindexar y busca de nuevo.',
    built: 'true cuando el índice ya se construyó al menos una vez.',
    sources: 'Una entrada por fuente configurada, en el orden de la configuración.',
    s_id: 'Id de la fuente: el primer segmento de cada ruta de esa fuente.',
    s_include: 'Patrones glob de los archivos que se indexan en esta fuente.',
    s_exclude: 'Patrones glob de archivos y carpetas que se omiten en esta fuente.',
    s_files: 'Archivos de esta fuente que están en el índice.',
    s_chunks: 'Fragmentos de esta fuente que están en el índice.',
    s_bytes: 'Tamaño total de esos archivos, en bytes.',
    s_indexed: 'Fecha de la última indexación de la fuente (ISO 8601, UTC), o null si nunca.',
    s_pending:
      'Diferencias entre la carpeta actual y el índice, según tamaño y fecha de modificación.',
    s_new: 'Archivos en disco que todavía no están indexados.',
    s_changed: 'Archivos indexados cuyo tamaño o fecha de modificación cambió.',
    s_deleted: 'Archivos indexados que ya no existen.',
    s_problems:
      'Archivos que la última reindexación no pudo indexar (UTF-8 inválido, binarios, demasiado grandes); reindexar los detalla.',
    r_full: 'true si se releyeron todos los archivos.',
    r_added: 'Archivos indexados por primera vez.',
    r_updated: 'Archivos cuyo contenido cambió y se volvieron a fragmentar.',
    r_renamed: 'Archivos movidos o renombrados sin cambios; se conservaron sus fragmentos.',
    r_removed: 'Archivos quitados del índice: borrados, excluidos o que ya no se leen como texto.',
    r_unchanged: 'Archivos que quedaron igual.',
    r_errors: 'Archivos que no se pudieron indexar; no aparecen en búsquedas hasta corregirlos.',
    e_path: 'El archivo, `<fuente>/<ruta>`.',
    e_code:
      'Motivo: INVALID_UTF8, BINARY_CONTENT, FILE_TOO_LARGE o un código de la guarda de rutas.',
    e_message: 'Qué estaba mal, en palabras.',
    r_files: 'Archivos en el índice al terminar.',
    r_chunks: 'Fragmentos en el índice al terminar.',
    r_duration: 'Duración de la reindexación, en milisegundos.',
    u_object:
      'Entradas omitidas porque su nombre no es UTF-8 válido, así que ninguna petición puede nombrarlas; nunca se omiten en silencio. Renómbralas para indexarlas.',
    u_count: 'Cuántas entradas se omitieron.',
    u_names:
      'Sus rutas (las 20 primeras), cada byte inválido escrito como \\xHH; una carpeta termina en / y no se recorrió.',
    r_u_names:
      'Sus rutas como `<fuente>/<ruta>` (las 20 primeras), cada byte inválido escrito como \\xHH; una carpeta termina en / y no se recorrió.',
  },
} as const;

const count = (text: string) => z.number().int().min(0).describe(text);

type Texts = (typeof T)[MemoryLocale];
const unlisted = (t: Texts, names: string) =>
  z
    .object({ count: count(t.u_count), names: z.array(z.string()).max(20).describe(names) })
    .describe(t.u_object);

/** Output schema of the search tool, described in `locale`. */
export function searchOutputSchema(locale: MemoryLocale = 'en') {
  const t = T[locale];
  return z.object({
    results: z
      .array(
        z.object({
          path: z.string().describe(t.c_path),
          source: z.string().describe(t.c_source),
          start_line: z.number().int().min(1).describe(t.c_start),
          end_line: z.number().int().min(1).describe(t.c_end),
          heading_path: z.string().describe(t.c_heading),
          snippet: z.string().describe(t.c_snippet),
          score: z.number().describe(t.c_score),
          version: z.string().describe(t.c_version),
          stale: z.boolean().describe(t.c_stale),
        }),
      )
      .describe(t.results),
    match: z.enum(['all', 'any', 'raw']).describe(t.match),
    fts_query: z.string().describe(t.fts),
    next_offset: z.number().int().min(0).nullable().describe(t.next_offset),
    warnings: z.array(z.string()).describe(t.warnings),
  });
}

/** Output schema of the read-fragment tool, described in `locale`. */
export function fragmentOutputSchema(locale: MemoryLocale = 'en') {
  const t = T[locale];
  return z.object({
    path: z.string().describe(t.f_path),
    source: z.string().describe(t.f_source),
    start_line: z.number().int().min(1).describe(t.f_start),
    end_line: z.number().int().min(0).describe(t.f_end),
    total_lines: count(t.f_total),
    content: z.string().describe(t.f_content),
    has_more: z.boolean().describe(t.f_more),
    next_start_line: z.number().int().min(1).nullable().describe(t.f_next),
    version: z.string().describe(t.f_version),
    indexed_version: z.string().describe(t.f_indexed),
    stale: z.boolean().describe(t.f_stale),
  });
}

/** Output schema of the list-sources tool, described in `locale`. */
export function sourcesOutputSchema(locale: MemoryLocale = 'en') {
  const t = T[locale];
  return z.object({
    built: z.boolean().describe(t.built),
    sources: z
      .array(
        z.object({
          id: z.string().describe(t.s_id),
          include: z.array(z.string()).describe(t.s_include),
          exclude: z.array(z.string()).describe(t.s_exclude),
          files: count(t.s_files),
          chunks: count(t.s_chunks),
          bytes: count(t.s_bytes),
          indexed_at: z.string().nullable().describe(t.s_indexed),
          pending: z
            .object({
              new: count(t.s_new),
              changed: count(t.s_changed),
              deleted: count(t.s_deleted),
            })
            .describe(t.s_pending),
          problems: count(t.s_problems),
          unlisted: unlisted(t, t.u_names),
        }),
      )
      .describe(t.sources),
    warnings: z.array(z.string()).describe(t.warnings),
  });
}

/** Output schema of the reindex tool, described in `locale`. */
export function reindexOutputSchema(locale: MemoryLocale = 'en') {
  const t = T[locale];
  return z.object({
    full: z.boolean().describe(t.r_full),
    added: count(t.r_added),
    updated: count(t.r_updated),
    renamed: count(t.r_renamed),
    removed: count(t.r_removed),
    unchanged: count(t.r_unchanged),
    errors: z
      .array(
        z.object({
          path: z.string().describe(t.e_path),
          code: z.string().describe(t.e_code),
          message: z.string().describe(t.e_message),
        }),
      )
      .describe(t.r_errors),
    files: count(t.r_files),
    chunks: count(t.r_chunks),
    duration_ms: count(t.r_duration),
    unlisted: unlisted(t, t.r_u_names),
    warnings: z.array(z.string()).describe(t.warnings),
  });
}
