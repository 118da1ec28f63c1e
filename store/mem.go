package store

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"
)

// Mem is an in-memory Store for tests and dry runs.
type Mem struct {
	mu      sync.Mutex
	objects map[string]memObject
}

type memObject struct {
	data    []byte
	modTime time.Time
}

var _ Store = (*Mem)(nil)

// NewMem returns an empty in-memory store.
func NewMem() *Mem { return &Mem{objects: map[string]memObject{}} }

// Open implements Store.
func (m *Mem) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	o, err := m.get(ctx, key)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(o.data)), nil
}

// Stat implements Store.
func (m *Mem) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	o, err := m.get(ctx, key)
	if err != nil {
		return ObjectInfo{}, err
	}
	return ObjectInfo{Key: key, Size: int64(len(o.data)), ModTime: o.modTime}, nil
}

func (m *Mem) get(ctx context.Context, key string) (memObject, error) {
	if err := ValidateKey(key); err != nil {
		return memObject{}, err
	}
	if err := ctx.Err(); err != nil {
		return memObject{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objects[key]
	if !ok {
		return memObject{}, fmt.Errorf("open %s: %w", key, fs.ErrNotExist)
	}
	return o, nil
}

// Create implements Store.
func (m *Mem) Create(ctx context.Context, key string, r io.Reader) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("create %s: %w", key, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("create %s: %w", key, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objects[key]; ok {
		return fmt.Errorf("create %s: %w", key, ErrExists)
	}
	m.objects[key] = memObject{data: data, modTime: time.Now()}
	return nil
}

// List implements Store.
func (m *Mem) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	if err := ValidatePrefix(prefix); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []ObjectInfo{}
	for k, o := range m.objects {
		if strings.HasPrefix(k, prefix) {
			out = append(out, ObjectInfo{Key: k, Size: int64(len(o.data)), ModTime: o.modTime})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}
