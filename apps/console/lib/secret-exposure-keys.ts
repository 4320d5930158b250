// V5/V6 query keys on their own: the rotate panel invalidates them after a rotation without pulling
// the versions and blast-radius documents into the secrets route's first load.
export const secretExposureKeys = {
  all: ['secret-exposure'] as const,
  secret: (secretId: string) => [...secretExposureKeys.all, secretId] as const,
  versions: (secretId: string) => [...secretExposureKeys.secret(secretId), 'versions'] as const,
  blastRadius: (secretId: string) => [...secretExposureKeys.secret(secretId), 'blast-radius'] as const,
};
