package console

// FormToken is the token of a form of a session: a signed-in user can
// compute it from their own cookie, so tests of authorization use it to
// show that a valid token opens nothing of another workspace.
func FormToken(seed, action string) string { return formToken(seed, action) }

// PasswordChecks is how many passwords this process has checked.
func PasswordChecks() int64 { return checks.Load() }
