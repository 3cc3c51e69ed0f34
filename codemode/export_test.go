package codemode

// Test-only helpers of the package.

// StopSpare ends the spare runner, if any, and waits for the refills in
// flight. A process need not (a spare dies with its parent); tests
// do, so that nothing outlives them.
func StopSpare() {
	spare.wg.Wait()
	spare.Lock()
	defer spare.Unlock()
	if spare.rp != nil {
		spare.rp.stop(true)
		spare.rp = nil
	}
}
