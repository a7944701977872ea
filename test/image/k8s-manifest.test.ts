/**
 * The Kubernetes example of docs/container.md (docs/k8s/*.yaml) is valid: every object passes the
 * Kubernetes schemas (kubernetes-models, generated from the API's OpenAPI document; the ServiceMonitor
 * from the Prometheus Operator's CRD), and the settings that only make sense together agree (the grace
 * periods, the probes' port and the HTTP address, the home's mount and DAEMON_HOME, non-root and a
 * read-only root). Mutated copies must be rejected, so the check itself is shown to work.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { Service } from 'kubernetes-models/v1/Service';
import { parseAllDocuments } from 'yaml';

import { parseDuration } from '../../src/config/index.js';

const root = path.resolve(fileURLToPath(import.meta.url), '../../../..');
type Obj = Record<string, any>;

function load(file: string): Obj[] {
  const docs = parseAllDocuments(readFileSync(path.join(root, file), 'utf8'));
  for (const doc of docs) assert.deepEqual(doc.errors, [], `${file}: YAML errors`);
  return docs.map((doc) => doc.toJS() as Obj);
}

const models: Record<string, new (data: any) => { validate(): void }> = {
  'v1/Service': Service,
  'apps/v1/StatefulSet': StatefulSet,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
};

/** Throws with the schema's message when `obj` is not a valid object of its kind. */
function validate(obj: Obj): void {
  const model = models[`${obj.apiVersion}/${obj.kind}`];
  if (model === undefined) throw new Error(`no schema known for ${obj.apiVersion} ${obj.kind}`);
  new model(obj).validate();
}

/** The rules across fields that the schemas cannot express. Throws on the first broken one. */
function checkCoherence(objects: Obj[]): void {
  const sts = objects.find((o) => o.kind === 'StatefulSet');
  assert.ok(sts, 'a StatefulSet');
  const pod = sts.spec.template.spec;
  const node = pod.containers.find((c: Obj) => c.name === 'node');
  assert.ok(node, 'a container named node');
  const env = Object.fromEntries((node.env as Obj[]).map((e) => [e.name, e.value]));
  assert.ok(env.DAEMON_NAME, 'DAEMON_NAME set');
  // The home is the claim, mounted where DAEMON_HOME says.
  const claim = sts.spec.volumeClaimTemplates?.[0]?.metadata?.name;
  assert.ok(claim, 'a volumeClaimTemplate');
  const mount = (node.volumeMounts as Obj[]).find((m) => m.name === claim);
  assert.equal(mount?.mountPath, env.DAEMON_HOME, 'the claim is mounted at DAEMON_HOME');
  // The kubelet's SIGKILL comes after chainvisor's.
  const parsed = parseDuration(String(env.DAEMON_SHUTDOWN_GRACE));
  assert.ok(parsed.ok, 'DAEMON_SHUTDOWN_GRACE is a duration');
  const grace = parsed.value;
  assert.ok(grace > 0, 'DAEMON_SHUTDOWN_GRACE set (0 would wait for the node however long, past the kubelet)');
  assert.ok(pod.terminationGracePeriodSeconds * 1000 >= grace + 10_000, 'terminationGracePeriodSeconds exceeds DAEMON_SHUTDOWN_GRACE by 10 s or more');
  // The probes reach the HTTP endpoint.
  const port = Number(/:(\d+)$/.exec(String(env.CHAINVISOR_HTTP_ADDRESS))?.[1]);
  const named = (node.ports as Obj[]).find((p) => p.containerPort === port);
  assert.ok(named, 'the HTTP address port is a container port');
  assert.equal(node.readinessProbe?.httpGet?.path, '/healthz', 'readiness on /healthz');
  for (const probe of [node.readinessProbe, node.livenessProbe]) {
    assert.ok([port, named.name].includes(probe?.httpGet?.port), 'probes on the HTTP address port');
  }
  assert.notEqual(node.livenessProbe?.httpGet?.path, '/healthz', 'liveness not on /healthz (503 during an upgrade)');
  // Non-root, read-only root.
  assert.equal(pod.securityContext?.runAsNonRoot, true, 'runAsNonRoot');
  for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
    assert.equal(c.securityContext?.readOnlyRootFilesystem, true, `${c.name}: readOnlyRootFilesystem`);
    assert.equal(c.securityContext?.allowPrivilegeEscalation, false, `${c.name}: allowPrivilegeEscalation false`);
  }
  // The Service selects the pods and names the metrics port the ServiceMonitor scrapes.
  const labels = sts.spec.template.metadata.labels as Obj;
  for (const svc of objects.filter((o) => o.kind === 'Service')) {
    for (const [k, v] of Object.entries(svc.spec.selector as Obj)) assert.equal(labels[k], v, `Service ${svc.metadata.name} selects the pods`);
  }
  assert.ok(
    objects.some((o) => o.kind === 'Service' && o.metadata.name === sts.spec.serviceName),
    'the governing Service exists',
  );
  for (const monitor of objects.filter((o) => o.kind === 'ServiceMonitor')) {
    const ports = objects.filter((o) => o.kind === 'Service').flatMap((s) => (s.spec.ports as Obj[]).map((p) => p.name));
    for (const e of monitor.spec.endpoints as Obj[]) assert.ok(ports.includes(e.port), `ServiceMonitor port ${e.port} exists on a Service`);
  }
}

const statefulset = load('docs/k8s/statefulset.yaml');
const servicemonitor = load('docs/k8s/servicemonitor.yaml');
const all = [...statefulset, ...servicemonitor];

/** A deep copy of the example with `change` applied to the object of `kind`. */
function mutated(kind: string, change: (o: Obj) => void): Obj[] {
  const copy = structuredClone(all);
  const target = copy.find((o) => o.kind === kind);
  assert.ok(target);
  change(target);
  return copy;
}

const node = (sts: Obj): Obj => sts.spec.template.spec.containers[0];

describe('docs/k8s: the Kubernetes example', () => {
  test('holds a Service, a StatefulSet, a NetworkPolicy and a ServiceMonitor', () => {
    assert.deepEqual(
      all.map((o) => o.kind),
      ['Service', 'StatefulSet', 'NetworkPolicy', 'ServiceMonitor'],
    );
  });

  for (const obj of all) {
    test(`${obj.kind} ${obj.metadata?.name} passes the Kubernetes schema`, () => {
      validate(obj);
    });
  }

  test('its settings agree with each other and with the image', () => {
    checkCoherence(all);
  });

  const schemaBreaks: Array<[string, string, (o: Obj) => void]> = [
    [
      'a port given as a word',
      'StatefulSet',
      (o) => {
        node(o).ports[0].containerPort = 'p2p';
      },
    ],
    [
      'no selector',
      'StatefulSet',
      (o) => {
        delete o.spec.selector;
      },
    ],
    [
      'a grace period as text',
      'StatefulSet',
      (o) => {
        o.spec.template.spec.terminationGracePeriodSeconds = '90s';
      },
    ],
    [
      'a container without a name',
      'StatefulSet',
      (o) => {
        delete node(o).name;
      },
    ],
    [
      'an env list written as a map',
      'StatefulSet',
      (o) => {
        node(o).env = { DAEMON_NAME: 'simd' };
      },
    ],
    [
      'a Service port without a number',
      'Service',
      (o) => {
        delete o.spec.ports[0].port;
      },
    ],
    [
      'a ServiceMonitor without a selector',
      'ServiceMonitor',
      (o) => {
        delete o.spec.selector;
      },
    ],
  ];
  for (const [what, kind, change] of schemaBreaks) {
    test(`a copy with ${what} is rejected by the schema`, () => {
      const broken = mutated(kind, change).find((o) => o.kind === kind) as Obj;
      assert.throws(() => validate(broken));
    });
  }

  const coherenceBreaks: Array<[string, (o: Obj) => void]> = [
    [
      'a termination grace shorter than DAEMON_SHUTDOWN_GRACE',
      (o) => {
        o.spec.template.spec.terminationGracePeriodSeconds = 30;
      },
    ],
    [
      'the home mounted elsewhere than DAEMON_HOME',
      (o) => {
        node(o).volumeMounts[0].mountPath = '/data';
      },
    ],
    [
      'probes on another port',
      (o) => {
        node(o).readinessProbe.httpGet.port = 8080;
      },
    ],
    [
      'a liveness probe on /healthz',
      (o) => {
        node(o).livenessProbe.httpGet.path = '/healthz';
      },
    ],
    [
      'a writable root filesystem',
      (o) => {
        node(o).securityContext.readOnlyRootFilesystem = false;
      },
    ],
    [
      'runAsNonRoot dropped',
      (o) => {
        delete o.spec.template.spec.securityContext.runAsNonRoot;
      },
    ],
  ];
  for (const [what, change] of coherenceBreaks) {
    test(`a copy with ${what} is rejected`, () => {
      const broken = mutated('StatefulSet', change);
      for (const obj of broken) validate(obj);
      assert.throws(() => checkCoherence(broken), assert.AssertionError);
    });
  }
});
