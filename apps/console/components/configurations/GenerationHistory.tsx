'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { generationChanges, type ConfigurationChanges } from '../../lib/config-diff';
import { configurationGenerationsQueryOptions, type ConfigurationGeneration } from '../../lib/configurations';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { RelativeTime } from '../ui/RelativeTime';
import { TableSkeleton } from '../ui/Skeleton';
import { ChangeItems } from './ChangeItems';

// A configuration's accepted generations (C5), newest first, each expandable to what it changed
// against the generation before it. Paged with "Load more"; the loaded pages stay, and focus moves
// to the first generation a click added.

const contentOf = (g: ConfigurationGeneration) => ({ values: g.values, bindings: g.secretBindings.map((b) => ({ envName: b.envName, secretId: b.source.id })) });

export function GenerationHistory({ configurationId }: { configurationId: string }) {
  const query = useInfiniteQuery(configurationGenerationsQueryOptions(configurationId));
  const { data, error, isPending, hasNextPage, fetchNextPage, isFetchingNextPage } = query;
  const pages = data?.pages ?? [];
  // Each shown generation with the one before it: the next shown one, or the page's extra row.
  const entries = pages.flatMap((page, p) =>
    page.shown.map((generation, i) => ({ generation, previous: page.shown[i + 1] ?? page.previous ?? pages[p + 1]?.shown[0] ?? null })),
  );
  const totalCount = pages[0]?.totalCount ?? 0;

  const list = useRef<HTMLOListElement>(null);
  const focusFrom = useRef<number | null>(null);
  useEffect(() => {
    if (focusFrom.current === null || entries.length <= focusFrom.current) return;
    list.current?.querySelectorAll<HTMLElement>('summary')[focusFrom.current]?.focus();
    focusFrom.current = null;
  }, [entries.length]);

  return (
    <section aria-labelledby="history-title" className="section" data-testid="generation-history">
      <h2 id="history-title">History</h2>
      {isPending ? <TableSkeleton label="Loading history…" rows={3} /> : null}
      {error ? <QueryErrorAlert error={error} what="this configuration's history" retry={() => query.refetch()} /> : null}
      {data ? (
        entries.length === 0 ? (
          <p className="empty">No generations recorded.</p>
        ) : (
          <>
            <p className="hint">
              {totalCount === 1 ? '1 generation' : `${totalCount} generations`}, newest first. Open one to see what it changed.
            </p>
            <ol ref={list} className="history" aria-label="Generations">
              {entries.map(({ generation, previous }) => (
                <li key={generation.generation} data-testid="generation-entry" data-generation={generation.generation}>
                  <details>
                    <summary>
                      Generation <strong>{generation.generation}</strong> · <RelativeTime iso={generation.createdAt} /> · by{' '}
                      {generation.createdBy ? generation.createdBy.name : 'an unknown principal'}
                    </summary>
                    <GenerationChanges generation={generation} previous={previous} />
                  </details>
                </li>
              ))}
            </ol>
          </>
        )
      ) : null}
      {hasNextPage ? (
        <button
          type="button"
          className="button secondary"
          disabled={isFetchingNextPage}
          onClick={() => {
            focusFrom.current = entries.length;
            void fetchNextPage();
          }}
        >
          {isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
    </section>
  );
}

function GenerationChanges({ generation, previous }: { generation: ConfigurationGeneration; previous: ConfigurationGeneration | null }) {
  const changes: ConfigurationChanges | null = generationChanges(generation.generation, contentOf(generation), previous ? contentOf(previous) : null);
  if (!changes) return <p className="hint">Earlier generations were not recorded, so what this one changed is not known.</p>;
  // Secret names as either generation's binding shows them (null: the caller may not read it).
  const names = new Map<string, string>();
  for (const b of [...(previous?.secretBindings ?? []), ...generation.secretBindings]) if (b.secret) names.set(b.source.id, b.secret.name);
  const secret = (id: string | undefined) => (id ? (names.get(id) ?? id) : '');
  if (changes.values.length + changes.bindings.length === 0) return <p className="hint">No changes: the same content as generation {generation.generation - 1}.</p>;
  return (
    <ul className="changes" aria-label={`Changes in generation ${generation.generation}`}>
      <ChangeItems changes={changes} secretName={secret} />
    </ul>
  );
}
