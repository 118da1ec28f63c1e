module github.com/fdl-formats/fdl-formats

go 1.26.8

require github.com/hashicorp/go-version v1.9.0
