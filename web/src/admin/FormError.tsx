/** Why a form or an action was refused, read out when it appears. */
export function FormError({ error }: { error: string | null }) {
  return (
    error && (
      <p role="alert" className="error">
        {error}
      </p>
    )
  );
}
