// Package deploy holds the deployment files (the compose setup's config and
// init SQL, the systemd unit); its tests check them, and the repository's
// Dockerfile and docker-compose.yml, against the configuration contract,
// since no Docker engine runs in CI.
package deploy
