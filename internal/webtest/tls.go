package webtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// ServeExpiredTLS serves h over HTTPS on 127.0.0.1 with a self-signed
// certificate for 127.0.0.1 that expired a day ago, and returns its URL:
// a site whose certificate was not renewed.
func ServeExpiredTLS(t testing.TB, h http.Handler) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    now.Add(-30 * 24 * time.Hour),
		NotAfter:     now.Add(-24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = QuietLog() // the client's refusal is the point
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL
}

// ServeTLS serves h over HTTPS on 127.0.0.1 with httptest's certificate,
// which no authority this machine trusts signs, and returns the server.
// Its handshake errors (the client refusing the certificate) are not
// logged.
func ServeTLS(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = QuietLog()
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// QuietLog is a server's log that drops what it is given.
func QuietLog() *log.Logger { return log.New(io.Discard, "", 0) }
