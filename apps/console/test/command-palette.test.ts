import { describe, expect, it } from 'vitest';
import { paletteOptions, parseCommand, type SearchHit } from '../lib/search';

// The command palette's options from search hits: every hit opens where its kind lives, secrets
// and agents offer their action, a typed verb narrows to that action; matrix over kinds × verbs ×
// a readable or unreadable namespace.

const uuid = '0b0e6c55-8c1a-4f4e-9a43-6f1d2f0c9b11';
const ns = `ns_${uuid}`;
const hit = (kind: SearchHit['kind'], readableNamespace = true): SearchHit => {
  const prefix = { NAMESPACE: 'ns', SECRET: 'sec', CONFIGURATION: 'cfg', AGENT: 'agt', USER: 'prn' }[kind];
  const inNamespace = kind !== 'NAMESPACE' && kind !== 'USER';
  return {
    kind,
    id: `${prefix}_${uuid}`,
    name: `${kind.toLowerCase()}-one`,
    match: 'PREFIX',
    namespaceId: inNamespace ? ns : null,
    namespace: inNamespace && readableNamespace ? { id: ns, name: 'team' } : null,
  };
};

describe('command palette', () => {
  it.each([
    ['tele', { text: 'tele', verb: null, kinds: null }],
    ['  Tele  ', { text: 'Tele', verb: null, kinds: null }],
    ['rotate tele', { text: 'tele', verb: 'rotate', kinds: ['SECRET'] }],
    ['Deploy  my-bot ', { text: 'my-bot', verb: 'deploy', kinds: ['AGENT'] }],
    ['deploy', { text: '', verb: 'deploy', kinds: ['AGENT'] }],
    ['deployment', { text: 'deployment', verb: null, kinds: null }],
    ['rotated-key', { text: 'rotated-key', verb: null, kinds: null }],
  ] as const)('parseCommand(%j)', (input, expected) => {
    expect(parseCommand(input)).toEqual(expected);
  });

  const kinds: SearchHit['kind'][] = ['NAMESPACE', 'SECRET', 'CONFIGURATION', 'AGENT', 'USER'];
  for (const readable of [true, false]) {
    for (const verb of [null, 'rotate', 'deploy'] as const) {
      it(`options for every kind, verb ${verb ?? 'none'}, namespace ${readable ? 'readable' : 'not readable'}`, () => {
        const options = paletteOptions(kinds.map((k) => hit(k, readable)), verb);
        const expected: string[] = [];
        for (const k of kinds) {
          const h = hit(k, readable);
          const open = {
            NAMESPACE: `/secrets?namespace=${ns}`,
            SECRET: `/secrets?namespace=${ns}&id=${h.id}`,
            CONFIGURATION: `/configurations?namespace=${ns}&id=${h.id}`,
            AGENT: `/agents?namespace=${ns}&id=${h.id}`,
            USER: `/audit?actorId=${h.id}`,
          }[k];
          if (!verb) expected.push(`Open ${k.toLowerCase()} ${h.name} -> ${open}`);
          if (k === 'SECRET' && verb !== 'deploy') expected.push(`Rotate secret ${h.name} -> /secrets?namespace=${ns}&id=${h.id}&rotate=1#rotate`);
          if (k === 'AGENT' && verb !== 'rotate') expected.push(`Deploy agent ${h.name} -> /agents?namespace=${ns}&id=${h.id}#deploy`);
        }
        expect(options.map((o) => `${o.label} -> ${o.href}`)).toEqual(expected);
        // Where it is: the namespace's name only when the viewer may read it.
        for (const o of options) expect(o.where).toBe(readable && !['namespace', 'user'].includes(o.kind) ? 'team' : null);
        expect(new Set(options.map((o) => o.key)).size).toBe(options.length);
      });
    }
  }
});
