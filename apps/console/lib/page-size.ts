/** Rows per page of a list the viewer pages through (lib/paging.ts). */
export const PAGE_SIZE = 20;
