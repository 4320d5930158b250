// The rollouts' query keys on their own: the rotate panel invalidates them after a rotation without
// pulling the rollout documents into the secrets route's first load (they load with the panel's chunk).
export const secretRolloutKeys = {
  all: ['secret-rollouts'] as const,
  secret: (secretId: string) => [...secretRolloutKeys.all, 'secret', secretId] as const,
  rollout: (rolloutId: string) => [...secretRolloutKeys.all, 'rollout', rolloutId] as const,
};
