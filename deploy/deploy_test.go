package deploy

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/sidecar-dev/sidecar/config"
)

type compose struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Build       any               `yaml:"build"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		Volumes     []string          `yaml:"volumes"`
		Ports       []string          `yaml:"ports"`
		Healthcheck map[string]any    `yaml:"healthcheck"`
		Restart     string            `yaml:"restart"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
}

func readCompose(t *testing.T) compose {
	t.Helper()
	data, err := os.ReadFile("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return c
}

// mounted returns the repository file mounted at target by a service.
func mounted(t *testing.T, volumes []string, target string) string {
	t.Helper()
	for _, v := range volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && parts[1] == target {
			src := filepath.Join("..", parts[0])
			if _, err := os.Stat(src); err != nil {
				t.Fatalf("volume %q: %v", v, err)
			}
			return src
		}
	}
	t.Fatalf("nothing mounted at %s in %v", target, volumes)
	return ""
}

func TestComposeMatchesConfigContract(t *testing.T) {
	c := readCompose(t)
	pg, ok := c.Services["postgres"]
	if !ok {
		t.Fatal("no postgres service")
	}
	sc, ok := c.Services["sidecar"]
	if !ok {
		t.Fatal("no sidecar service")
	}
	if !strings.Contains(strings.Join(pg.Command, " "), "wal_level=logical") {
		t.Errorf("postgres does not run with wal_level=logical: %v", pg.Command)
	}
	if sc.Build == nil {
		t.Error("sidecar is not built from the Dockerfile")
	}
	if sc.DependsOn["postgres"].Condition != "service_healthy" || pg.Healthcheck == nil {
		t.Error("sidecar does not wait for a healthy postgres")
	}

	// The mounted config loads under the contract and points at the
	// postgres service.
	if len(sc.Command) < 3 || sc.Command[0] != "run" || sc.Command[1] != "--config" {
		t.Fatalf("sidecar command %v, want run --config FILE", sc.Command)
	}
	cfgFile := mounted(t, sc.Volumes, sc.Command[2])
	cfg, err := config.Load(config.LoadOptions{File: cfgFile, Environ: []string{
		"SIDECAR_DATA_DIR=" + t.TempDir(), // the container's path does not exist here
		"SIDECAR_SQL_USERS_FILE=" + mounted(t, sc.Volumes, "/etc/sidecar/sql-users"),
		"PGPASSWORD=" + sc.Environment["PGPASSWORD"],
	}})
	if err != nil {
		t.Fatalf("compose config: %v", err)
	}
	if !strings.Contains(cfg.Postgres.URL, "@postgres:5432/") {
		t.Errorf("postgres.url %q does not name the postgres service", cfg.Postgres.Redacted())
	}
	if strings.Contains(cfg.Postgres.URL, ":"+sc.Environment["PGPASSWORD"]+"@") {
		t.Error("the password is in the config file; it belongs in the environment")
	}
	if cfg.Postgres.Password() == "" {
		t.Error("no password reaches the sidecar")
	}

	// Ports: the published container port is the one the sidecar listens on,
	// and it is published on the host's loopback only.
	_, listenPort, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		t.Fatal(err)
	}
	sqlHost, sqlPort, err := net.SplitHostPort(cfg.SQL.Listen)
	if err != nil {
		t.Fatalf("sql.listen %q: %v", cfg.SQL.Listen, err)
	}
	if sqlHost != "0.0.0.0" || cfg.SQL.UsersFile == "" {
		t.Errorf("sql.listen %q with users_file %q: SQL must listen on the container's interfaces, with users", cfg.SQL.Listen, cfg.SQL.UsersFile)
	}
	if len(sc.Ports) != 2 {
		t.Fatalf("sidecar ports %v, want the API and SQL ports", sc.Ports)
	}
	for i, want := range []string{listenPort, sqlPort} {
		p := strings.Split(sc.Ports[i], ":")
		if len(p) != 3 || p[0] != "127.0.0.1" || p[2] != want {
			t.Errorf("published %q does not map loopback to port %s", sc.Ports[i], want)
		}
	}

	// The init SQL creates what the config relies on: a replication role
	// matching the URL, the followed tables and the publication.
	initSQL, err := os.ReadFile(mounted(t, pg.Volumes, "/docker-entrypoint-initdb.d/10-sidecar.sql"))
	if err != nil {
		t.Fatal(err)
	}
	sql := strings.ToLower(string(initSQL))
	user := regexp.MustCompile(`postgres://([^@:]+)@`).FindStringSubmatch(cfg.Postgres.URL)
	if user == nil || !strings.Contains(sql, "create role "+user[1]+" with login replication password '"+sc.Environment["PGPASSWORD"]+"'") {
		t.Errorf("init SQL does not create the replication role of the URL with the compose password")
	}
	for _, tbl := range cfg.Tables {
		name, err := config.ParseTable(tbl)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(sql, "create table "+name.String()+" (") {
			t.Errorf("init SQL does not create %s", name)
		}
	}
	if !strings.Contains(sql, "create publication "+cfg.Publication+" for table") {
		t.Errorf("init SQL does not create publication %s", cfg.Publication)
	}
}

func TestSystemdUnit(t *testing.T) {
	data, err := os.ReadFile("sidecar.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := string(data)
	for _, want := range []string{
		"ExecStart=/usr/local/bin/sidecar run --config /etc/sidecar/sidecar.yaml",
		"Restart=on-failure",
		"KillSignal=SIGTERM",
		"[Install]",
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("sidecar.service lacks %q", want)
		}
	}
}

func TestDockerfileBuildsTheCommand(t *testing.T) {
	data, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(data)
	// Multi-stage: the runtime stage copies the binary from the build
	// stage, which stamps the version and commit sidecar version prints.
	if strings.Count(df, "\nFROM ") < 1 || !strings.Contains(df, "COPY --from=build /out/sidecar") {
		t.Error("Dockerfile is not a build stage and a runtime stage")
	}
	for _, want := range []string{"go build", "./cmd/sidecar", "ENTRYPOINT [\"/usr/local/bin/sidecar\"]", "USER sidecar",
		"-X main.version=${VERSION}", "-X main.commit=${COMMIT}", "EXPOSE 7433"} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if _, err := os.Stat("../cmd/sidecar/main.go"); err != nil {
		t.Errorf("the Dockerfile builds ./cmd/sidecar: %v", err)
	}
}
