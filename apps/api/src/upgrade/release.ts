/**
 * This build's release, as CHANGELOG.md's newest heading names it. It is recorded in the database
 * with the migrations it ran (upgrade/stored-state.ts), so a start on state written by a newer
 * release can name that release and refuse before changing anything. Bump it, and add the
 * CHANGELOG entry, when a release changes what is stored (release.test.ts holds the two together).
 */
export const RELEASE = '2026.12.06.1';
