import Fleet
import Foundation
import TestSupport
import Testing
import Yams

/// What deploys a fleet (docs/FLEET.md): the Kubernetes manifests against Kubernetes' own schemas, and the numbers the
/// manifests, the Containerfile and the scrape configurations must agree on.
@Suite("Kubernetes manifests, the container image and the scrape configurations")
struct DeployTests {
    static let root = CLI.packageRoot

    static func yaml(_ path: String) throws -> [String: Any] {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        return try #require(try Yams.load(yaml: text) as? [String: Any], "\(path) is one YAML mapping")
    }

    /// The value at a path of keys (strings) and indices (ints) in parsed YAML.
    static func at(_ node: Any?, _ path: Any...) -> Any? {
        path.reduce(node) { n, k in
            if let k = k as? String { return (n as? [String: Any])?[k] }
            if let i = k as? Int, let a = n as? [Any], a.indices.contains(i) { return a[i] }
            return nil
        }
    }

    @Test("the manifests pass kubernetes-validate --strict (Kubernetes' schemas; an unknown field fails)")
    func schemas() async throws {
        // scripts/setup.sh test installs it from PyPI.
        let tool = Self.root.appendingPathComponent(".build/tools/bin/kubernetes-validate")
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "kubernetes-validate is installed by scripts/setup.sh test")
        let files = ["configmap.yaml", "service.yaml", "statefulset.yaml"].map {
            Self.root.appendingPathComponent("deploy/kubernetes/\($0)").path
        }
        let r = try await ChildProcess.run(tool, ["--strict"] + files)
        #expect(r.status == 0, "\(r.output)")
        for name in ["configmap/hlstui-fleet", "service/hlstui-fleet", "statefulset/hlstui-fleet"] {
            #expect(r.output.contains("passed for resource \(name)"), "\(r.output)")
        }
        // The validator refuses what Kubernetes would: a misspelt field.
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("hlstui-bad-\(UUID().uuidString.prefix(8)).yaml")
        defer { try? FileManager.default.removeItem(at: bad) }
        let text = try String(contentsOfFile: files[2], encoding: .utf8)
        try text.replacingOccurrences(of: "terminationGracePeriodSeconds", with: "terminationGracePeriod").write(
            to: bad, atomically: true, encoding: .utf8)
        let refused = try await ChildProcess.run(tool, ["--strict", bad.path])
        #expect(refused.status != 0 && refused.output.contains("terminationGracePeriod"), "\(refused.output)")
    }

    @Test("the StatefulSet: --shard's N is its replicas, K its pod's name; the fleet file mounted where the args read it, and valid")
    func statefulSet() throws {
        let set = try Self.yaml("deploy/kubernetes/statefulset.yaml")
        let replicas = try #require(Self.at(set, "spec", "replicas") as? Int)
        let pod = try #require(Self.at(set, "spec", "template", "spec") as? [String: Any])
        let container = try #require(Self.at(pod, "containers", 0) as? [String: Any])
        let args = try #require(container["args"] as? [String])
        let shard = try #require(args.firstIndex(of: "--shard").map { args[$0 + 1] })
        #expect(shard == "$(POD_NAME)/\(replicas)", "N must be the replica count: \(shard), replicas \(replicas)")
        // Each pod's name, as the StatefulSet names them, is a shard of its own.
        let name = try #require(Self.at(set, "metadata", "name") as? String)
        let shards = try (0..<replicas).map { try FleetShard.parse("\(name)-\($0)/\(replicas)") }
        #expect(shards.map(\.index) == Array(0..<replicas))
        #expect(throws: FleetError.self) { try FleetShard.parse("\(name)-\(replicas)/\(replicas)") }
        let env = try #require(container["env"] as? [[String: Any]])
        #expect(
            env.contains {
                $0["name"] as? String == "POD_NAME" && Self.at($0, "valueFrom", "fieldRef", "fieldPath") as? String == "metadata.name"
            })
        // The metrics port: the args, the container port, the probes and the annotations agree.
        let metrics = try #require(args.firstIndex(of: "--metrics").map { args[$0 + 1] })
        #expect(metrics == "0.0.0.0:9464")
        #expect(
            Self.at(container, "ports", 0, "containerPort") as? Int == 9464
                && Self.at(container, "ports", 0, "name") as? String == "metrics")
        #expect(Self.at(container, "readinessProbe", "httpGet", "path") as? String == "/metrics")
        #expect(Self.at(set, "spec", "template", "metadata", "annotations", "prometheus.io/port") as? String == "9464")
        // The fleet file: the ConfigMap's key at the mount the args name, a file `hlstui fleet` accepts.
        let file = args[1]
        let mount = try #require((container["volumeMounts"] as? [[String: Any]])?.first { $0["name"] as? String == "fleet" })
        let dir = try #require(mount["mountPath"] as? String)
        let map = try Self.yaml("deploy/kubernetes/configmap.yaml")
        let key = String(file.dropFirst(dir.count + 1))
        #expect(file.hasPrefix(dir + "/"))
        let fleet = try #require(Self.at(map, "data", key) as? String, "the ConfigMap holds \(key)")
        #expect(try FleetConfig.parse(fleet).streams.count >= 1)
        #expect(Self.at(pod, "volumes", 0, "configMap", "name") as? String == Self.at(map, "metadata", "name") as? String)
        // Non-root, as the image's USER.
        let containerfile = try String(contentsOf: Self.root.appendingPathComponent("Containerfile"), encoding: .utf8)
        let user = containerfile.split(separator: "\n").first { $0.hasPrefix("USER ") }.map { String($0.dropFirst(5)) }
        #expect(
            user
                == "\(Self.at(pod, "securityContext", "runAsUser") as? Int ?? -1):\(Self.at(pod, "securityContext", "runAsGroup") as? Int ?? -1)"
        )
        #expect(containerfile.contains(#"CMD ["fleet", "/etc/hlstui/fleet.yaml", "--metrics", "0.0.0.0:9464"]"#))
    }

    @Test("the Service and the PodMonitor select the StatefulSet's pods and name its metrics port")
    func discovery() throws {
        let set = try Self.yaml("deploy/kubernetes/statefulset.yaml")
        let labels = try #require(Self.at(set, "spec", "template", "metadata", "labels") as? [String: String])
        let service = try Self.yaml("deploy/kubernetes/service.yaml")
        #expect(Self.at(set, "spec", "serviceName") as? String == Self.at(service, "metadata", "name") as? String)
        #expect(Self.at(service, "spec", "clusterIP") as? String == "None", "headless")
        #expect(try #require(Self.at(service, "spec", "selector") as? [String: String]).allSatisfy { labels[$0.key] == $0.value })
        let monitor = try Self.yaml("deploy/kubernetes/operator/podmonitor.yaml")
        #expect(
            Self.at(monitor, "apiVersion") as? String == "monitoring.coreos.com/v1" && Self.at(monitor, "kind") as? String == "PodMonitor")
        let selected = try #require(Self.at(monitor, "spec", "selector", "matchLabels") as? [String: String])
        #expect(!selected.isEmpty && selected.allSatisfy { labels[$0.key] == $0.value })
        #expect(Self.at(monitor, "spec", "podMetricsEndpoints", 0, "port") as? String == "metrics")
        #expect(Self.at(monitor, "spec", "podMetricsEndpoints", 0, "path") as? String == "/metrics")
    }

    @Test("the Kubernetes scrape configuration passes promtool with its discovery block replaced by a static target")
    func kubernetesScrape() async throws {
        let promtool = try #require(
            FleetPrometheusTests.tool("promtool"), "promtool (Debian's prometheus) is installed by scripts/setup.sh")
        let text = try String(contentsOf: Self.root.appendingPathComponent("deploy/prometheus/kubernetes.yml"), encoding: .utf8)
        #expect(text.contains("kubernetes_sd_configs:\n      - role: pod\n"))
        let dir = try CLI.directory([
            "kubernetes.yml": text.replacingOccurrences(
                of: "kubernetes_sd_configs:\n      - role: pod\n", with: "static_configs:\n      - targets: [\"127.0.0.1:9464\"]\n"),
            "hlstui-rules.yml": try String(
                contentsOf: Self.root.appendingPathComponent("deploy/prometheus/hlstui-rules.yml"), encoding: .utf8),
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try await ChildProcess.run(
            URL(fileURLWithPath: promtool), ["check", "config", dir.appendingPathComponent("kubernetes.yml").path])
        #expect(r.status == 0 && r.output.contains("SUCCESS"), "\(r.output)")
    }
}
