// Types of db-generate.mjs for scripts/start.ts (the script stays JavaScript: `npm run db:generate`
// runs it with whatever Node is on PATH).
export function ensurePrismaClient(root?: string, args?: readonly string[]): number;
