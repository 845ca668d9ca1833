-- Whether the session itself passed the second factor. For an account with one, a session that
-- did not is no session: one made with the password alone before the factor was turned on must
-- not get in once it is on. Sessions from before this column did not record it, so an operator
-- with a second factor signs in once more.
ALTER TABLE operator_sessions ADD COLUMN second_factor_passed INTEGER NOT NULL DEFAULT 0;
