package config

import (
	"fmt"
	"regexp"

	"github.com/sidecar-dev/sidecar/internal/editdist"
)

// typoDistance is the largest edit distance at which an unknown SIDECAR_
// variable is taken for a misspelt key (SIDECAR_SLOTT, SIDECAR_LOG_LEVL) and
// stops the load; anything further off is somebody else's variable and only
// warned about.
const typoDistance = 2

// kubernetesServiceVar matches the variables Kubernetes injects into every
// pod of a namespace for each Service: a Service named "sidecar" (or
// "sidecar-sql", …) yields SIDECAR_SERVICE_HOST, SIDECAR_SERVICE_PORT,
// SIDECAR_SERVICE_PORT_<NAME>, SIDECAR_PORT, SIDECAR_PORT_7433_TCP and its
// _PROTO/_PORT/_ADDR. They name no config key and are no typo of one, so the
// most natural deployment must not refuse to start because of them.
var kubernetesServiceVar = regexp.MustCompile(`^SIDECAR(_[A-Z0-9_]+?)?_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_[0-9]+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?)$`)

// unknownEnv classifies a SIDECAR_ variable that names no config key: a
// problem (it is a near miss of a key's variable: a typo that would
// otherwise silently do nothing), a warning (someone else's variable), or
// nothing at all (a Kubernetes service variable).
func unknownEnv(name string, keys map[string]bool) (problem, warning string) {
	if kubernetesServiceVar.MatchString(name) {
		return "", ""
	}
	best, bestD := "", typoDistance+1
	for _, k := range sortedKeys(keys) {
		if d := editdist.Distance(name, envName(k)); d < bestD {
			best, bestD = envName(k), d
		}
	}
	if best != "" {
		return fmt.Sprintf("environment variable %s names no config key (did you mean %s?)", name, best), ""
	}
	return "", fmt.Sprintf("environment variable %s names no config key; ignored%s", name, suggestEnv(name, keys))
}
