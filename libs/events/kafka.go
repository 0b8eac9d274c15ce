package events

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
)

// Brokers is the Kafka cluster a client talks to: its bootstrap addresses and
// how to connect to them. Every Kafka client of the platform (the publisher,
// the consumers and their offset monitor, topic creation, the gateway's
// followers, the bench) takes its dialer or transport from here, so TLS and
// SASL settings reach all of them. Nil TLS and SASL: plaintext, no
// authentication.
type Brokers struct {
	Addrs []string
	TLS   *tls.Config
	SASL  sasl.Mechanism
}

// dialTimeout bounds a connection's set-up: TCP, the TLS handshake and the
// SASL exchange.
const dialTimeout = 5 * time.Second

// Addr is the cluster's bootstrap address for kafka-go's Client and Writer.
func (b Brokers) Addr() net.Addr { return kafka.TCP(b.Addrs...) }

// Dialer is for kafka-go's Reader (consumer groups, partition readers).
func (b Brokers) Dialer(clientID string) *kafka.Dialer {
	return &kafka.Dialer{Timeout: dialTimeout, DualStack: true, ClientID: clientID, TLS: b.TLS, SASLMechanism: b.SASL}
}

// Transport is for kafka-go's Client and Writer. It keeps connections open:
// close them with CloseIdleConnections when the client is done.
func (b Brokers) Transport(clientID string) *kafka.Transport {
	return &kafka.Transport{DialTimeout: dialTimeout, ClientID: clientID, TLS: b.TLS, SASL: b.SASL}
}

// The SASL mechanisms clients and the embedded broker speak.
const (
	SASLPlain       = "PLAIN"
	SASLScramSHA256 = "SCRAM-SHA-256"
	SASLScramSHA512 = "SCRAM-SHA-512"
)

// Credentials are a SASL user's: the broker's side (BrokerOptions.Users) and
// a client's.
type Credentials struct {
	Mechanism string // SASLPlain, SASLScramSHA256 or SASLScramSHA512
	Username  string
	Password  string
}

// mechanism is the client side of the credentials.
func (c Credentials) mechanism() (sasl.Mechanism, error) {
	switch c.Mechanism {
	case SASLPlain:
		return plain.Mechanism{Username: c.Username, Password: c.Password}, nil
	case SASLScramSHA256:
		return scram.Mechanism(scram.SHA256, c.Username, c.Password)
	case SASLScramSHA512:
		return scram.Mechanism(scram.SHA512, c.Username, c.Password)
	}
	return nil, fmt.Errorf("unknown SASL mechanism %q", c.Mechanism)
}

// KafkaSettings are how a program reaches Kafka, read from the environment
// (libs/config tags; the user name and password also from files,
// KAFKA_SASL_USERNAME_FILE and KAFKA_SASL_PASSWORD_FILE). libs/program embeds
// them, so the services, the gateway and the tools read the same settings.
type KafkaSettings struct {
	KafkaBrokers []string `env:"KAFKA_BROKERS"`
	// TLS is on when enabled or when any other TLS setting is given.
	KafkaTLSEnabled    bool   `env:"KAFKA_TLS_ENABLED"`
	KafkaTLSCAFile     string `env:"KAFKA_TLS_CA_FILE"`   // PEM; empty: the system's roots
	KafkaTLSCertFile   string `env:"KAFKA_TLS_CERT_FILE"` // client certificate (PEM), with its key
	KafkaTLSKeyFile    string `env:"KAFKA_TLS_KEY_FILE"`
	KafkaTLSServerName string `env:"KAFKA_TLS_SERVER_NAME"` // empty: each broker's host name
	KafkaSASLMechanism string `env:"KAFKA_SASL_MECHANISM"`  // PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; empty: none
	KafkaSASLUsername  string `env:"KAFKA_SASL_USERNAME" file:"true"`
	KafkaSASLPassword  string `env:"KAFKA_SASL_PASSWORD" secret:"true"`
}

// Kafka builds the brokers from the settings, reading the CA and the client
// certificate; bad settings are an error naming the setting.
func (s KafkaSettings) Kafka() (Brokers, error) {
	b := Brokers{Addrs: s.KafkaBrokers}
	var err error
	if b.TLS, err = s.tlsConfig(); err != nil {
		return Brokers{}, err
	}
	creds, err := s.KafkaUser()
	if err != nil {
		return Brokers{}, err
	}
	if creds.Mechanism == SASLPlain && b.TLS == nil {
		return Brokers{}, errors.New("KAFKA_SASL_MECHANISM=PLAIN sends the password as it is: use it only with TLS (KAFKA_TLS_ENABLED=true), or use SCRAM-SHA-512")
	}
	if creds.Mechanism != "" {
		if b.SASL, err = creds.mechanism(); err != nil {
			return Brokers{}, fmt.Errorf("KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD: %w", err)
		}
	}
	return b, nil
}

// KafkaUser is the SASL user of the settings; no mechanism: none.
func (s KafkaSettings) KafkaUser() (Credentials, error) {
	mech := strings.ToUpper(strings.TrimSpace(s.KafkaSASLMechanism))
	c := Credentials{Mechanism: mech, Username: s.KafkaSASLUsername, Password: s.KafkaSASLPassword}
	switch mech {
	case "":
		if c.Username != "" || c.Password != "" {
			return Credentials{}, errors.New("KAFKA_SASL_USERNAME or KAFKA_SASL_PASSWORD is set without KAFKA_SASL_MECHANISM: set the mechanism (SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN), or the credentials would not be used")
		}
		return Credentials{}, nil
	case SASLPlain, SASLScramSHA256, SASLScramSHA512:
	default:
		return Credentials{}, fmt.Errorf("KAFKA_SASL_MECHANISM %q must be SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN", s.KafkaSASLMechanism)
	}
	if c.Username == "" || c.Password == "" {
		return Credentials{}, fmt.Errorf("KAFKA_SASL_MECHANISM=%s needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD (or KAFKA_SASL_USERNAME_FILE and KAFKA_SASL_PASSWORD_FILE)", mech)
	}
	return c, nil
}

// CheckEmbedded refuses the settings that cannot apply to an embedded
// broker (no KAFKA_BROKERS; the all-in-one's, the distributed launcher's):
// it listens on loopback without TLS, and it makes its users itself, one for
// each service and the gateway, every start (NewUser), so that each is
// allowed only its own topics. The KAFKA_TLS_ and KAFKA_SASL_ settings
// configure the connection to KAFKA_BROKERS.
func (s KafkaSettings) CheckEmbedded() error {
	if s.KafkaTLSConfigured() {
		return errors.New("the KAFKA_TLS_ settings are for KAFKA_BROKERS: the embedded broker (no KAFKA_BROKERS) listens on loopback without TLS; unset them, or set KAFKA_BROKERS")
	}
	if s.KafkaSASLMechanism != "" || s.KafkaSASLUsername != "" || s.KafkaSASLPassword != "" {
		return errors.New("the KAFKA_SASL_ settings are for KAFKA_BROKERS: the embedded broker (no KAFKA_BROKERS) makes a user for each service and the gateway, with a new password every start, each allowed only its own topics; unset them, or set KAFKA_BROKERS")
	}
	return nil
}

// NewUser is a SCRAM-SHA-512 user named name with a random password made
// now, which only the caller knows and hands on.
func NewUser(name string) Credentials {
	return Credentials{Mechanism: SASLScramSHA512, Username: name, Password: rand.Text()}
}

// KafkaTLSConfigured reports whether any TLS setting is given.
func (s KafkaSettings) KafkaTLSConfigured() bool {
	return s.KafkaTLSEnabled || s.KafkaTLSCAFile != "" || s.KafkaTLSCertFile != "" || s.KafkaTLSKeyFile != "" || s.KafkaTLSServerName != ""
}

// tlsConfig is the TLS of the settings; nil when TLS is off.
func (s KafkaSettings) tlsConfig() (*tls.Config, error) {
	if !s.KafkaTLSConfigured() {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: s.KafkaTLSServerName}
	if s.KafkaTLSCAFile != "" {
		pem, err := os.ReadFile(s.KafkaTLSCAFile)
		if err != nil {
			return nil, fmt.Errorf("KAFKA_TLS_CA_FILE: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("KAFKA_TLS_CA_FILE: %s holds no PEM certificate", s.KafkaTLSCAFile)
		}
	}
	switch {
	case s.KafkaTLSCertFile != "" && s.KafkaTLSKeyFile != "":
		cert, err := tls.LoadX509KeyPair(s.KafkaTLSCertFile, s.KafkaTLSKeyFile)
		if err != nil {
			return nil, fmt.Errorf("KAFKA_TLS_CERT_FILE, KAFKA_TLS_KEY_FILE: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	case s.KafkaTLSCertFile != "" || s.KafkaTLSKeyFile != "":
		return nil, errors.New("a client certificate needs both KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE")
	}
	return cfg, nil
}

// ErrBrokerRefused marks a refusal that retrying will not cure: the brokers
// refused the credentials, or the connection's TLS does not match theirs.
var ErrBrokerRefused = errors.New("kafka refused this client")

// refused is a refusal (ErrBrokerRefused) explained.
type refused struct {
	msg string
	err error
}

func (e *refused) Error() string   { return e.msg + ": " + e.err.Error() }
func (e *refused) Unwrap() []error { return []error{ErrBrokerRefused, e.err} }

func refusal(err error, format string, args ...any) error {
	return &refused{msg: fmt.Sprintf(format, args...), err: err}
}

// Check proves a broker accepts this client: a connection with its TLS and
// SASL, and one metadata request. Kafka answers a wrong password, missing
// credentials or a plaintext client of a TLS listener alike, by closing the
// connection; Check tells them apart by trying again with less (without the
// SASL exchange, then a request any client may send before authenticating)
// and names the setting to look at. Such refusals wrap ErrBrokerRefused.
func (b Brokers) Check(ctx context.Context, clientID string) error {
	if len(b.Addrs) == 0 {
		return errors.New("kafka: no broker address (KAFKA_BROKERS)")
	}
	var errs []error
	for _, addr := range b.Addrs {
		err := b.check(ctx, clientID, addr)
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrBrokerRefused) {
			return err
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// CheckAtStart is what a program does with Check as it starts: a refusal
// (ErrBrokerRefused: credentials, TLS) is returned, for the program to stop,
// since retrying cannot cure it and the error names the setting; brokers that
// do not answer yet are only logged, the clients retry until they do. No
// addresses: nothing to check.
func (b Brokers) CheckAtStart(ctx context.Context, clientID string, logger *slog.Logger) error {
	if len(b.Addrs) == 0 {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := b.Check(cctx, clientID)
	if errors.Is(err, ErrBrokerRefused) {
		return err
	}
	if err != nil {
		logger.Warn("kafka does not answer yet; its clients will retry", "err", err)
	}
	return nil
}

func (b Brokers) check(ctx context.Context, clientID, addr string) error {
	d := b.Dialer(clientID)
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		var certErr *tls.CertificateVerificationError
		var recordErr tls.RecordHeaderError
		switch {
		case errors.As(err, &certErr):
			return refusal(err, "kafka at %s: its certificate is not trusted (KAFKA_TLS_CA_FILE, KAFKA_TLS_SERVER_NAME)", addr)
		case errors.As(err, &recordErr):
			return refusal(err, "kafka at %s does not speak TLS (KAFKA_TLS_ENABLED and the other KAFKA_TLS_ settings)", addr)
		case tlsAlert(err):
			return refusal(err, "kafka at %s refused the TLS connection: does it require a client certificate (KAFKA_TLS_CERT_FILE, KAFKA_TLS_KEY_FILE)?", addr)
		}
		if b.SASL != nil {
			plain := *d
			plain.SASLMechanism = nil
			if speaksKafka(ctx, &plain, addr) {
				return refusal(err, "kafka at %s refused the SASL credentials (KAFKA_SASL_MECHANISM=%s, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD)", addr, b.SASL.Name())
			}
		}
		if b.TLS == nil && isClosed(err) {
			return refusal(err, "kafka at %s closed the connection without answering: does it require TLS (KAFKA_TLS_ENABLED)?", addr)
		}
		return fmt.Errorf("kafka at %s: %w", addr, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if _, err := conn.Brokers(); err != nil {
		if b.SASL == nil && isClosed(err) {
			if speaksKafka(ctx, d, addr) {
				return refusal(err, "kafka at %s requires authentication: set KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD", addr)
			}
			if b.TLS == nil {
				return refusal(err, "kafka at %s closed the connection without answering: does it require TLS (KAFKA_TLS_ENABLED)?", addr)
			}
		}
		return fmt.Errorf("kafka at %s: %w", addr, err)
	}
	return nil
}

// speaksKafka reports whether a broker answers the one request any client may
// send before authenticating (ApiVersions) on a connection d opens.
func speaksKafka(ctx context.Context, d *kafka.Dialer, addr string) bool {
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	_, err = conn.ApiVersions()
	return err == nil
}

// tlsAlert reports whether err is the peer ending the TLS handshake with an
// alert (crypto/tls reports it as a "remote error").
func tlsAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error"
}

// isClosed reports whether err is the peer closing the connection.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed)
}
