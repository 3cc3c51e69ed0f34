// Package ask is the agent's question to the person: the ask_user tool
// (a question and, optionally, choices), how it reaches the person, and
// how an answer comes back as the tool's result.
//
// The tool itself only carries the question to an [Asker] (the bridge's
// session) and turns its [Reply] into a result the model reads; every
// outcome — an answer, a decline, a cancel, a client that cannot be
// asked — is a successful result whose text says what happened, so the
// model never waits and never mistakes a refusal for an answer. [Route]
// decides, as a pure function of what the client advertised and of the
// question, whether it goes as an ACP elicitation (form mode), as a
// permission request with the choices as options, or cannot be asked.
// The tool has no side effect (EffectRead): it runs in every mode, plan
// mode included.
package ask
