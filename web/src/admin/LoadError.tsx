/** A failed load: the server's sentence, and a retry button while there is nothing to show yet. */
export function LoadError({ message, canRetry, onRetry }: { message: string; canRetry: boolean; onRetry: () => void }) {
  return (
    <div className="error-box">
      <p role="alert" className="error">
        {message}
      </p>
      {canRetry && (
        <button type="button" className="button" onClick={onRetry}>
          Спробувати ще раз
        </button>
      )}
    </div>
  );
}
