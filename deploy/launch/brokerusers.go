package launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"marketplace/libs/events"
)

// BrokerUsersFile is the file under DATA_DIR/distributed in which the
// launcher gives `marketplace broker -users` the run's Kafka users.
const BrokerUsersFile = "broker-users.json"

// brokerUser is one line of a users file.
type brokerUser struct {
	Name      string `json:"name"`
	Mechanism string `json:"mechanism"`
	Password  string `json:"password"`
}

// WriteBrokerUsers writes users to path, readable by its owner only (mode
// 0600, in a directory only they may enter), replacing what it held.
func WriteBrokerUsers(path string, users []events.Credentials) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("kafka users: %w", err)
	}
	list := make([]brokerUser, len(users))
	for i, u := range users {
		list[i] = brokerUser{Name: u.Username, Mechanism: u.Mechanism, Password: u.Password}
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	// A new file each time: one left by an earlier run keeps its mode
	// otherwise, and WriteFile's mode only applies to a file it creates.
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("kafka users: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("kafka users: %w", err)
	}
	return nil
}

// ReadBrokerUsers reads a users file: a JSON list of {"name", "mechanism",
// "password"}. A file that others than its owner may read or write is
// refused, as is a user without a name, a known mechanism or a password, or
// one named twice.
func ReadBrokerUsers(path string) ([]events.Credentials, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%s holds passwords but its mode is %04o: make it readable by its owner only (chmod 600)", path, perm)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []brokerUser
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: not a JSON list of users {\"name\", \"mechanism\", \"password\"}: %w", path, err)
	}
	seen := map[string]bool{}
	out := make([]events.Credentials, 0, len(list))
	for i, u := range list {
		switch {
		case u.Name == "":
			return nil, fmt.Errorf("%s: user %d has no name", path, i+1)
		case seen[u.Name]:
			return nil, fmt.Errorf("%s: user %s is named twice", path, u.Name)
		case u.Mechanism != events.SASLScramSHA512 && u.Mechanism != events.SASLScramSHA256:
			return nil, fmt.Errorf("%s: user %s: mechanism %q, want %s or %s (the broker speaks no TLS, and PLAIN would send the password as it is)",
				path, u.Name, u.Mechanism, events.SASLScramSHA512, events.SASLScramSHA256)
		case len(u.Password) < 16:
			return nil, fmt.Errorf("%s: user %s: a password of at least 16 characters is needed", path, u.Name)
		}
		seen[u.Name] = true
		out = append(out, events.Credentials{Mechanism: u.Mechanism, Username: u.Name, Password: u.Password})
	}
	return out, nil
}
