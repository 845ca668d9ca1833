// The page-load proof in the form itself, for a browser that keeps no cookie and runs no script
// (docs/decisions/0066). The prerender puts a hidden field after #root, outside what React hydrates,
// tied to the form by its `form` attribute; the server writes a proof into its value per answer
// (src/http/pages.rs, src/http/form.rs), and `zayavka build-static` leaves it empty.

/** The field's name, as `POST /leads` reads it (src/http/form.rs), and its value's slot. */
export const PROOF_FIELD = { name: 'zayavka_proof', token: '__ZAYAVKA_PROOF__' } as const;

/** The hidden field for the form with id `formId`. */
export function proofFieldHtml(formId: string): string {
  return `<input type="hidden" form="${formId}" name="${PROOF_FIELD.name}" value="${PROOF_FIELD.token}" />`;
}
