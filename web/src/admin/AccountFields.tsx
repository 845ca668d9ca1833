// The fields of an account, as the sign-in, the first start's setup and the team's "new account"
// forms ask for them; their names are the API's (`email`, `password`).
import type { Ref } from 'react';

/** Shortest password the server takes (as `zayavka admin add-user` does). */
export const MIN_PASSWORD_CHARS = 10;

/** Why a new password is refused before it is sent, or null when it is long enough. */
export function shortPasswordError(password: string): string | null {
  return [...password].length < MIN_PASSWORD_CHARS
    ? `Пароль має містити щонайменше ${MIN_PASSWORD_CHARS} символів.`
    : null;
}

/**
 * The account's e-mail. `autoComplete`: "username" for the operator's own account (the browser
 * offers and saves it with the password), "off" for someone else's.
 */
export function EmailField({ autoComplete, inputRef }: { autoComplete: 'username' | 'off'; inputRef?: Ref<HTMLInputElement> }) {
  return (
    <label className="field">
      <span>Електронна пошта</span>
      <input
        ref={inputRef}
        name="email"
        type="email"
        autoComplete={autoComplete}
        autoCapitalize="none"
        spellCheck={false}
        required
      />
    </label>
  );
}

const PASSWORDS = {
  /** The operator's own, to sign in. */
  current: { name: 'password', label: 'Пароль', autoComplete: 'current-password' },
  /** A password being chosen, with the shortest length it may have. */
  new: { name: 'password', label: `Пароль (щонайменше ${MIN_PASSWORD_CHARS} символів)`, autoComplete: 'new-password' },
  /** The chosen one again, to catch a typo. */
  repeat: { name: 'repeat', label: 'Пароль ще раз', autoComplete: 'new-password' },
} as const;

export function PasswordField({ kind }: { kind: keyof typeof PASSWORDS }) {
  const { name, label, autoComplete } = PASSWORDS[kind];
  return (
    <label className="field">
      <span>{label}</span>
      <input name={name} type="password" autoComplete={autoComplete} required />
    </label>
  );
}
