// A GraphQL-over-SSE client as a script would write one with fetch: POST the operation with
// `Accept: text/event-stream` and read `next` events until `complete`.

export interface SseEvent {
  event: string;
  data: unknown;
}

export interface SseStream {
  status: number;
  contentType: string;
  /** The next event (keep-alive comments skipped); undefined once the stream has ended. */
  next(timeoutMs?: number): Promise<SseEvent | undefined>;
  /** Every event up to the end of the stream. */
  rest(timeoutMs?: number): Promise<SseEvent[]>;
  close(): void;
}

export async function subscribeSse(baseUrl: string, query: string, variables: Record<string, unknown>, key: string | null): Promise<SseStream> {
  const aborted = new AbortController();
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }), signal: aborted.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let ended = false;

  async function next(timeoutMs = 60_000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const cut = buffered.indexOf('\n\n');
      if (cut >= 0) {
        const block = buffered.slice(0, cut);
        buffered = buffered.slice(cut + 2);
        const lines = block.split('\n').filter((l) => !l.startsWith(':'));
        if (lines.length === 0) continue;
        const event = lines.find((l) => l.startsWith('event:'))?.slice(6).trim() ?? 'message';
        const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
        return { event, data: data ? JSON.parse(data) : null };
      }
      if (ended) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no SSE event within ${timeoutMs} ms; buffered: ${buffered.slice(0, 200)}`);
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        reader.read(),
        new Promise<'timeout'>((r) => {
          timer = setTimeout(() => r('timeout'), left);
        }),
      ]).finally(() => clearTimeout(timer));
      if (chunk === 'timeout') continue;
      if (chunk.done) ended = true;
      else buffered += decoder.decode(chunk.value, { stream: true });
    }
  }

  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    next,
    async rest(timeoutMs = 120_000) {
      const events: SseEvent[] = [];
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const event = await next(Math.max(1, deadline - Date.now()));
        if (!event) return events;
        events.push(event);
      }
    },
    close() {
      aborted.abort();
      reader.cancel().catch(() => {});
    },
  };
}
