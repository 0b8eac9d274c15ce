package modules

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"marketplace/libs/service"
)

const root = "../.."

func sorted(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// The start order puts every module after the modules it calls, and the
// declarations name only declared modules.
func TestStartOrderFollowsCalls(t *testing.T) {
	order, err := StartOrder(All)
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, m := range order {
		pos[m.Name] = i
	}
	if len(order) != len(All) {
		t.Fatalf("start order has %d modules, the list %d", len(order), len(All))
	}
	for _, m := range All {
		for _, c := range m.Calls {
			if pos[c] >= pos[m.Name] {
				t.Errorf("%s starts before %s, which it calls", m.Name, c)
			}
		}
	}
	a := service.Module{Name: "a", Calls: []string{"b"}}
	b := service.Module{Name: "b", Calls: []string{"a"}}
	saved := All
	defer func() { All = saved }()
	All = []service.Module{a, b}
	if _, err := StartOrder(All); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("a cycle of calls: %v", err)
	}
	All = []service.Module{{Name: "c", Calls: []string{"nobody"}}}
	if _, err := StartOrder(All); err == nil || !strings.Contains(err.Error(), "not a module") {
		t.Fatalf("a call to an undeclared module: %v", err)
	}
}

func TestTopicsAreThoseDeclared(t *testing.T) {
	got := Topics(All)
	for _, m := range All {
		for _, tp := range append(slices.Clone(m.Publishes), m.Consumes...) {
			if !slices.Contains(got, tp) {
				t.Errorf("topic %s of %s is not created", tp, m.Name)
			}
		}
	}
	if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Fatalf("topics %v are not sorted and unique", got)
	}
}

// docker-compose.yml runs exactly the modules of the list (each from its own
// binary) and the gateway routes to exactly them.
func TestComposeRunsTheModules(t *testing.T) {
	var compose struct {
		Services map[string]struct {
			Build struct {
				Args map[string]string `yaml:"args"`
			} `yaml:"build"`
			Environment map[string]any `yaml:"environment"`
		} `yaml:"services"`
	}
	b, err := os.ReadFile(filepath.Join(root, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &compose); err != nil {
		t.Fatal(err)
	}
	var programs []string
	for name, svc := range compose.Services {
		target := svc.Build.Args["TARGET"]
		if !strings.HasPrefix(target, "./services/") {
			continue // infrastructure, or the gateway
		}
		programs = append(programs, name)
		if want := "./services/" + name + "/cmd/" + name; target != want {
			t.Errorf("compose service %s builds %s, want %s", name, target, want)
		}
	}
	if !slices.Equal(sorted(programs), sorted(Names())) {
		t.Errorf("docker-compose.yml runs services %v; the module list is %v", sorted(programs), sorted(Names()))
	}
	gw, ok := compose.Services["gateway"]
	if !ok || gw.Build.Args["TARGET"] != "./deploy/cmd/gateway" {
		t.Fatalf("compose gateway: %+v", gw)
	}
	if v, _ := gw.Environment["GATEWAY_SERVICES"].(string); !slices.Equal(sorted(strings.Split(v, ",")), sorted(Names())) {
		t.Errorf("the compose gateway routes to %q; the module list is %v", v, Names())
	}
	for _, name := range Names() {
		if _, err := os.Stat(filepath.Join(root, "services", name, "cmd", name, "main.go")); err != nil {
			t.Errorf("module %s has no binary of its own: %v", name, err)
		}
	}
}

// k8s/ deploys exactly the modules of the list, and the gateway routes to them.
func TestKubernetesDeploysTheModules(t *testing.T) {
	var kust struct {
		Resources []string `yaml:"resources"`
		Images    []struct {
			Name string `yaml:"name"`
		} `yaml:"images"`
	}
	b, err := os.ReadFile(filepath.Join(root, "k8s", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &kust); err != nil {
		t.Fatal(err)
	}
	var deployments, images []string
	gatewayServices := ""
	for _, res := range kust.Resources {
		f, err := os.Open(filepath.Join(root, "k8s", res))
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(f)
		for {
			var doc struct {
				Kind     string `yaml:"kind"`
				Metadata struct {
					Name string `yaml:"name"`
				} `yaml:"metadata"`
				Spec struct {
					Template struct {
						Spec struct {
							Containers []struct {
								Image string `yaml:"image"`
								Env   []struct {
									Name  string `yaml:"name"`
									Value string `yaml:"value"`
								} `yaml:"env"`
							} `yaml:"containers"`
						} `yaml:"spec"`
					} `yaml:"template"`
				} `yaml:"spec"`
			}
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", res, err)
			}
			if doc.Kind != "Deployment" {
				continue
			}
			if doc.Metadata.Name == "gateway" {
				for _, c := range doc.Spec.Template.Spec.Containers {
					for _, e := range c.Env {
						if e.Name == "GATEWAY_SERVICES" {
							gatewayServices = e.Value
						}
					}
				}
				continue
			}
			deployments = append(deployments, doc.Metadata.Name)
			for _, c := range doc.Spec.Template.Spec.Containers {
				if want := "marketplace/" + doc.Metadata.Name; c.Image != want {
					t.Errorf("deployment %s runs image %s, want %s", doc.Metadata.Name, c.Image, want)
				}
			}
		}
		f.Close()
	}
	if !slices.Equal(sorted(deployments), sorted(Names())) {
		t.Errorf("k8s/ deploys %v; the module list is %v", sorted(deployments), sorted(Names()))
	}
	for _, im := range kust.Images {
		if im.Name != "marketplace/gateway" {
			images = append(images, strings.TrimPrefix(im.Name, "marketplace/"))
		}
	}
	if !slices.Equal(sorted(images), sorted(Names())) {
		t.Errorf("k8s/kustomization.yaml tags images of %v; the module list is %v", sorted(images), sorted(Names()))
	}
	if !slices.Equal(sorted(strings.Split(gatewayServices, ",")), sorted(Names())) {
		t.Errorf("the k8s gateway routes to %q; the module list is %v", gatewayServices, Names())
	}
}
