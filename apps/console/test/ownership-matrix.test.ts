import { describe, expect, it } from 'vitest';
import { configPatchKeys, itemLabel, ownershipMatrix, type OwnedItem } from '../lib/selfconfig';

// RC3 K2: the instance's config is a granular map, so the ownership matrix lists config keys one by
// one (it used to show one `config.raw` row), grouped after skills, env vars and workspace files.

const occ = { manager: 'occ-controller', operation: 'Apply' };
const agent = { manager: 'openclaw-selfconfig', operation: 'Apply' };
const item = (kind: string, name: string, owners: OwnedItem['owners'], path: string[] | null = null): OwnedItem => ({ kind, name, path, owners });

describe('RC3 K2 the ownership matrix', () => {
  it('RC3 groups items by kind in a fixed order, config keys one row each, sorted by key path so a key’s children follow it', () => {
    const { managers, groups } = ownershipMatrix([
      item('config', 'tools2', [occ], ['tools2']),
      item('config', 'tools.web.x', [agent], ['tools', 'web', 'x']),
      item('workspaceFile', 'AGENTS.md', [occ]),
      item('config', 'tools', [occ], ['tools']),
      item('config', 'tools.a', [occ, agent], ['tools', 'a']),
      item('envVar', 'LOG_LEVEL', [agent]),
      item('skill', 'web-search', [occ]),
      item('skill', 'calendar', [agent]),
    ]);
    expect(managers).toEqual(['occ-controller', 'openclaw-selfconfig']);
    expect(groups.map((g) => [g.label, g.rows.map((r) => itemLabel(r.item))])).toEqual([
      ['Skills', ['skills/calendar', 'skills/web-search']],
      ['Env vars', ['env/LOG_LEVEL']],
      ['Workspace files', ['files/AGENTS.md']],
      ['Config keys', ['config.tools', 'config.tools.a', 'config.tools.web.x', 'config.tools2']],
    ]);
    const shared = groups[3]!.rows.find((r) => r.item.name === 'tools.a')!;
    expect(shared.cells).toEqual([['Apply'], ['Apply']]);
  });

  it('RC3 leaves out empty groups, puts an unknown kind last under its own name, keeps a column for the agent when it owns nothing, and an unknown manager after', () => {
    const { managers, groups } = ownershipMatrix([
      item('mystery', 'm', [{ manager: 'kubectl-edit', operation: 'Update' }]),
      item('config', 'model', [occ], ['model']),
    ]);
    expect(managers).toEqual(['occ-controller', 'openclaw-selfconfig', 'kubectl-edit']);
    expect(groups.map((g) => g.label)).toEqual(['Config keys', 'mystery']);
    expect(groups[1]!.rows[0]!.cells).toEqual([[], [], ['Update']]);
  });
});

describe('RC3 a request’s config patch, key by key', () => {
  it('RC3 names each key a merge patch sets or removes (null), as the matrix names config keys, odd keys quoted', () => {
    expect(configPatchKeys({ tools: { exec: { timeoutSec: 120 }, web: null }, model: 'x', 'a.b': { c: [1] }, empty: {} })).toEqual([
      { name: 'tools.exec.timeoutSec', removes: false },
      { name: 'tools.web', removes: true },
      { name: 'model', removes: false },
      { name: '"a.b".c', removes: false },
      { name: 'empty', removes: false },
    ]);
    expect(configPatchKeys(null)).toEqual([]);
    expect(configPatchKeys(['x'])).toEqual([]);
  });
});
