import { TableSkeleton } from './Skeleton';

/**
 * What a page of one namespace shows before its code has run (the static page's Suspense
 * fallback): its heading and placeholder rows inside the frame, so the first paint is the page's
 * shape, not a bare "Loading…".
 */
export function PageSkeleton({ title }: { title: string }) {
  return (
    <>
      <h1>{title}</h1>
      <TableSkeleton label={`Loading ${title}…`} />
    </>
  );
}
