// Package credentials finds and keeps the API key dsh-bridge talks to its
// model endpoint with.
//
// A key comes from, in this order: the environment ([Names]:
// DSH_API_KEY, DEEPSEEK_API_KEY, OPENAI_API_KEY), the OS keychain (macOS
// Keychain, Windows Credential Manager, the Secret Service on Linux and
// the BSDs) when one is reachable, else the file credentials.json in the
// user's config folder (internal/folders.Config), written with mode 0600
// in a folder of mode 0700. A key is never kept in a workspace, and this
// package never logs or prints one; callers pass what they load to
// internal/secrets.Remember before anything can echo it.
//
// The keychain is reached through the [Keychain] interface, so that its
// use, and the fallback to the file when it fails, is tested with a fake;
// [Reachable] decides, as a pure function of the system, whether the
// platform's keychain is tried at all.
package credentials
