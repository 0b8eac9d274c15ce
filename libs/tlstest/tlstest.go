// Package tlstest makes a certificate authority and certificates for tests of
// TLS connections (Kafka, MongoDB): in memory and as the PEM files a
// program's settings name.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority made for one test.
type CA struct {
	Cert *x509.Certificate
	Pool *x509.CertPool // trusts the CA
	File string         // its certificate, PEM
	key  *ecdsa.PrivateKey
	dir  string
}

// NewCA makes a CA named name, its files in a directory of the test.
func NewCA(t testing.TB, name string) *CA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ca := &CA{Cert: cert, Pool: x509.NewCertPool(), File: filepath.Join(dir, name+".pem"), key: key, dir: dir}
	ca.Pool.AddCert(cert)
	writePEM(t, ca.File, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	return ca
}

// Issued is a certificate the CA signed, with its files.
type Issued struct {
	Pair     tls.Certificate
	CertFile string // the certificate, PEM
	KeyFile  string // its key, PEM
	BothFile string // the certificate and its key in one PEM file (MongoDB's tlsCertificateKeyFile)
}

// Server issues a server certificate for 127.0.0.1 and the names given.
func (ca *CA) Server(t testing.TB, name string, dnsNames ...string) Issued {
	t.Helper()
	return ca.issue(t, name, &x509.Certificate{
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: dnsNames,
	})
}

// Client issues a client certificate.
func (ca *CA) Client(t testing.TB, name string) Issued {
	t.Helper()
	return ca.issue(t, name, &x509.Certificate{ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
}

func (ca *CA) issue(t testing.TB, name string, tmpl *x509.Certificate) Issued {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber, tmpl.Subject = serial, pkix.Name{CommonName: name}
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	is := Issued{CertFile: filepath.Join(ca.dir, name+".pem"), KeyFile: filepath.Join(ca.dir, name+"-key.pem"), BothFile: filepath.Join(ca.dir, name+"-both.pem")}
	writePEM(t, is.CertFile, certPEM)
	writePEM(t, is.KeyFile, keyPEM)
	writePEM(t, is.BothFile, append(append([]byte{}, certPEM...), keyPEM...))
	if is.Pair, err = tls.X509KeyPair(certPEM, keyPEM); err != nil {
		t.Fatal(err)
	}
	return is
}

func writePEM(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
