/** Suggestions for the subject fields: users, and this namespace's agents' service principals. */
export function PrincipalOptions({ id, principals }: { id: string; principals: { id: string; label: string }[] }) {
  return (
    <datalist id={id}>
      {principals.map((principal) => (
        <option key={principal.id} value={principal.id}>
          {principal.label}
        </option>
      ))}
    </datalist>
  );
}
