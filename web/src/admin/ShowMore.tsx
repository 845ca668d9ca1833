/** "Показати ще" under a list whose page has a next one (the API's `next_before_id`). */
export function ShowMore({
  page,
  loading,
  onShowMore,
}: {
  page: { next_before_id: number | null } | null;
  loading: boolean;
  onShowMore: () => void;
}) {
  if (!page || page.next_before_id === null) return null;
  return (
    <button type="button" className="button more" onClick={onShowMore} disabled={loading}>
      Показати ще
    </button>
  );
}
