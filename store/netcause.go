package store

import (
	"errors"
	"net"
)

// NetCause is the reason a connection failed, without the request line an
// HTTP client (Go's, or the S3 SDK's) wraps it in: "connect: connection
// refused", or the DNS error naming the host.
func NetCause(err error) string {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.Error()
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	return err.Error()
}
