/**
 * Size of a buffer that glibc's malloc serves from a mapping of its own: past 32 MiB (its
 * largest dynamic mmap threshold) a block is mapped on its own and unmapped when freed, without
 * raising the thresholds. By default, freeing a mapped block of up to 32 MiB (a 10 MB file's
 * bytes, a doubling postings buffer) makes malloc keep every later block below that size in its
 * heaps, and up to twice that size free there instead of returning it. Only the pages written
 * are resident: the rest is address space.
 */
export const OWN_MAPPING_BYTES = 32 * 1024 * 1024 + 64 * 1024;
