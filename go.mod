module github.com/dsh-bridge/dsh-bridge

go 1.26

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	go.uber.org/goleak v1.3.0
)

require golang.org/x/text v0.14.0 // indirect
