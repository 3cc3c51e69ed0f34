package credentials

import (
	"errors"

	"github.com/zalando/go-keyring"
)

// osKeychain is the platform's keychain through go-keyring: /usr/bin/security
// on macOS (the secret passed on its stdin), the Credential Manager's API on
// Windows, the Secret Service over D-Bus elsewhere.
type osKeychain struct{}

func (osKeychain) Get(service, user string) (string, error) {
	v, err := keyring.Get(service, user)
	return v, notFound(err)
}

func (osKeychain) Set(service, user, secret string) error {
	return keyring.Set(service, user, secret)
}

func (osKeychain) Delete(service, user string) error {
	return notFound(keyring.Delete(service, user))
}

func notFound(err error) error {
	if errors.Is(err, keyring.ErrNotFound) {
		return ErrNotFound
	}
	return err
}
