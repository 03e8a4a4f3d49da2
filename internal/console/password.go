package console

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"webacq/internal/model"
)

// argon2id parameters: OWASP's first choice (19 MiB, two passes, one
// lane). They are written into every hash, so raising them later leaves
// old hashes readable.
const (
	argonMemory  = 19 * 1024 // KiB
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// Password bounds: long enough to resist guessing, short enough that
// hashing stays cheap.
const (
	MinPasswordLen = 10
	MaxPasswordLen = 256
)

// hashing bounds the hashes computed at once: each holds argonMemory, and
// a burst of sign-ins must not exhaust the node's memory.
var hashing = make(chan struct{}, 4)

// HashPassword returns the argon2id hash of password in PHC form
// ($argon2id$v=19$m=…,t=…,p=…$salt$hash).
func HashPassword(password string) string {
	salt := make([]byte, argonSaltLen)
	rand.Read(salt)
	hashing <- struct{}{}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	<-hashing
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// checks counts the passwords checked since the process started.
var checks atomic.Int64

var errHash = errors.New("console: not an argon2id hash")

// CheckPassword reports whether password matches hash, comparing in
// constant time.
func CheckPassword(hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errHash
	}
	var version int
	var memory, passes uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads); err != nil || memory == 0 || passes == 0 ||
		threads == 0 || memory > 1<<20 {
		return false, errHash
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, errHash
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, errHash
	}
	checks.Add(1)
	hashing <- struct{}{}
	got := argon2.IDKey([]byte(password), salt, passes, memory, threads, uint32(len(want)))
	<-hashing
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// turns lets one holder per key work at a time (one password check per
// client address); the others wait their turn, or until their context
// ends. Keys nobody holds or waits for are forgotten.
type turns struct {
	mu sync.Mutex
	m  map[string]*turn
}

type turn struct {
	slot  chan struct{}
	users int // holding or waiting
}

// take waits for key's turn and returns the function that ends it.
func (t *turns) take(ctx context.Context, key string) (func(), error) {
	t.mu.Lock()
	if t.m == nil {
		t.m = map[string]*turn{}
	}
	k := t.m[key]
	if k == nil {
		k = &turn{slot: make(chan struct{}, 1)}
		t.m[key] = k
	}
	k.users++
	t.mu.Unlock()
	leave := func() {
		t.mu.Lock()
		if k.users--; k.users == 0 {
			delete(t.m, key)
		}
		t.mu.Unlock()
	}
	select {
	case k.slot <- struct{}{}:
		return func() { <-k.slot; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}

// decoy is a hash checked when no account has the email given, so that a
// sign-in takes as long whether or not the account exists.
var decoy = sync.OnceValue(func() string {
	b := make([]byte, 18)
	rand.Read(b)
	return HashPassword(base64.RawStdEncoding.EncodeToString(b))
})

// NormalizeEmail returns an email address in the form accounts are kept
// under (trimmed, lower case), or bad_request.
func NormalizeEmail(email string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" || len(email) > 254 {
		return "", model.Errorf(model.CodeBadRequest, "%q is not an email address (write it bare: name@example.com)", email)
	}
	return email, nil
}

// CheckNewPassword refuses a password too short or too long to keep.
func CheckNewPassword(password string) error {
	if n := utf8.RuneCountInString(password); n < MinPasswordLen || len(password) > MaxPasswordLen {
		return model.Errorf(model.CodeBadRequest, "a password has %d to %d characters", MinPasswordLen, MaxPasswordLen)
	}
	return nil
}
