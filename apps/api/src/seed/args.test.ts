import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSeedArgs, SeedArgsError } from './args.ts';

describe('npm run seed arguments', () => {
  it('takes the issue\'s example and fills in the defaults', () => {
    expect(parseSeedArgs(['--secrets', '10000', '--agents', '1000', '--audit', '1000000'])).toEqual({
      namespace: 'seed',
      secrets: 10000,
      agents: 1000,
      configurations: 100,
      audit: 1000000,
      parallel: 4,
    });
    expect(parseSeedArgs([])).toMatchObject({ secrets: 100, agents: 10, configurations: 1, audit: 0 });
    expect(parseSeedArgs(['--agents=0', '--secrets=0'])).toMatchObject({ agents: 0, configurations: 0, secrets: 0 });
  });

  it('lists every problem at once, naming each option', () => {
    const error = (() => {
      try {
        parseSeedArgs(['--secrets=-1', '--agents', 'many', '--namespace', 'Bad_Name', '--parallel', '0']);
      } catch (e) {
        return e as SeedArgsError;
      }
      throw new Error('accepted');
    })();
    expect(error).toBeInstanceOf(SeedArgsError);
    expect(error.problems.map((p) => p.split(' ')[0])).toEqual(['--namespace', '--secrets', '--agents', '--parallel']);
  });

  it('refuses unknown options, positionals and contradictions', () => {
    for (const argv of [['--secret', '1'], ['10'], ['--agents', '5', '--configurations', '0'], ['--secrets', '0', '--agents', '1']]) {
      expect(() => parseSeedArgs(argv), argv.join(' ')).toThrow(SeedArgsError);
    }
  });

  it('P4 any argument list either parses to bounded whole numbers or is refused with a SeedArgsError', () => {
    const token = fc.oneof(fc.constantFrom('--secrets', '--agents', '--audit', '--configurations', '--parallel', '--namespace', '--x', '-s'), fc.string(), fc.integer().map(String), fc.constantFrom('1e3', '0x10', '00', '9'.repeat(12), ' 1', '1\u0000'));
    fc.assert(
      fc.property(fc.array(token, { maxLength: 8 }), (argv) => {
        try {
          const args = parseSeedArgs(argv);
          for (const n of [args.secrets, args.agents, args.audit, args.configurations, args.parallel]) expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
          expect(args.parallel).toBeGreaterThan(0);
        } catch (error) {
          expect(error).toBeInstanceOf(SeedArgsError);
        }
      }),
    );
  });
});
