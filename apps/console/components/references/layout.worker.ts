// The reference graph's layout off the page's thread: 2,000 nodes take dagre about a second,
// which would freeze scrolling and typing on the main thread (lib/reference-layout.ts). Not in
// lib/: the API's tests import every module there, and this one acts on import.
import { layoutGraph } from '../../lib/reference-layout';

interface Request {
  id: number;
  nodes: Parameters<typeof layoutGraph>[0];
  edges: Parameters<typeof layoutGraph>[1];
}

self.onmessage = (event: MessageEvent<Request>) => {
  const { id, nodes, edges } = event.data;
  self.postMessage({ id, layout: layoutGraph(nodes, edges) });
};
