package store_test

import (
	"testing"

	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/storetest"
)

func TestMem(t *testing.T) {
	storetest.Run(t, func(*testing.T) store.Store { return store.NewMem() })
}
