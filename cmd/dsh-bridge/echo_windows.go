package main

import "golang.org/x/sys/windows"

// echoOff turns the console's echo off (line input stays on) and returns
// what turns it back on.
func echoOff(fd int) (restore func(), err error) {
	h := windows.Handle(fd)
	var old uint32
	if err := windows.GetConsoleMode(h, &old); err != nil {
		return nil, err
	}
	mode := old&^windows.ENABLE_ECHO_INPUT | windows.ENABLE_PROCESSED_INPUT | windows.ENABLE_LINE_INPUT
	if err := windows.SetConsoleMode(h, mode); err != nil {
		return nil, err
	}
	return func() { windows.SetConsoleMode(h, old) }, nil
}
