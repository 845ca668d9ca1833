/** A failed load: the server's sentence, and a button that asks again. */
export function LoadError({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div className="error-box">
      <p role="alert" className="error">
        {message}
      </p>
      {onRetry && (
        <button type="button" className="button" onClick={onRetry}>
          Спробувати ще раз
        </button>
      )}
    </div>
  );
}
