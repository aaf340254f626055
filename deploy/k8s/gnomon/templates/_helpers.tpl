{{/* Chart name. */}}
{{- define "gnomon.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-qualified name; role objects append "-<role>". */}}
{{- define "gnomon.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "gnomon.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gnomon.labels" -}}
helm.sh/chart: {{ include "gnomon.chart" . }}
app.kubernetes.io/name: {{ include "gnomon.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gnomon
{{- end }}

{{/* Selector labels of one component: include "gnomon.selectorLabels" (list $ "scheduler"). */}}
{{- define "gnomon.selectorLabels" -}}
{{- $ := index . 0 -}}
app.kubernetes.io/name: {{ include "gnomon.name" $ }}
app.kubernetes.io/instance: {{ $.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{/* The image reference: repository@digest when image.digest is set, else repository:tag. */}}
{{- define "gnomon.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion (toString .Values.image.tag)) }}
{{- end }}
{{- end }}

{{/*
The data of the chart's own Secret (key -> base64), as JSON: the store URL
the chart holds, and the cluster and first admin tokens unless Secrets of the
operator's hold them. A generated token is taken from the Secret already in
the cluster (lookup), so upgrades keep it; only when there is none (install,
or a render without cluster access: helm template, Argo CD, Flux's
post-renderers) is a new one generated. Computed once per render and kept in
.Release, so the Secret and the pods' checksum annotation see the same
random values.
*/}}
{{- define "gnomon.secretData" -}}
{{- /* Keyed by the Secret's name: .Release is shared with other charts of an umbrella. */}}
{{- $memo := printf "gnomonSecretData/%s" (include "gnomon.secretName" .) }}
{{- if not (hasKey .Release $memo) }}
{{- $data := dict }}
{{- $storeUrl := include "gnomon.storeUrl" . }}
{{- $wantToken := and (not .Values.allInOne) (not .Values.clusterToken.existingSecret) }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "gnomon.secretName" .) }}
{{- /* Helm's templates do not short-circuit "and": test step by step. */}}
{{- $old := dict }}
{{- if $existing }}
{{- $old = $existing.data | default dict }}
{{- end }}
{{- if $storeUrl }}
{{- $_ := set $data "store-url" ($storeUrl | b64enc) }}
{{- end }}
{{- if $wantToken }}
{{- $token := .Values.clusterToken.value }}
{{- if not $token }}
{{- $token = index $old "cluster-token" | default "" | b64dec | default (randAlphaNum 48) }}
{{- end }}
{{- $_ := set $data "cluster-token" ($token | b64enc) }}
{{- end }}
{{- if not .Values.adminToken.existingSecret }}
{{- $admin := index $old "admin-token" | default "" | b64dec | default (randAlphaNum 48) }}
{{- $_ := set $data "admin-token" ($admin | b64enc) }}
{{- end }}
{{- $_ := set .Release $memo $data }}
{{- end }}
{{- toJson (index .Release $memo) }}
{{- end }}

{{/*
What the pods read from Secrets, hashed: the chart's Secret's data and the
names and keys of the Secrets they use. A new token or URL rolls the pods;
the same data gives the same checksum (a Secret of the operator's is not
read: restart the pods after changing it).
*/}}
{{- define "gnomon.secretChecksum" -}}
{{- $refs := list (include "gnomon.storeSecretName" .) (include "gnomon.storeSecretKey" .) (include "gnomon.clusterTokenSecretName" .) (include "gnomon.clusterTokenSecretKey" .) (include "gnomon.adminTokenSecretName" .) (include "gnomon.adminTokenSecretKey" .) }}
{{- toJson (dict "data" (fromJson (include "gnomon.secretData" .)) "refs" $refs) | sha256sum }}
{{- end }}

{{- define "gnomon.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gnomon.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Name of the Secret the chart creates (store URL and/or cluster token). */}}
{{- define "gnomon.secretName" -}}
{{- include "gnomon.fullname" . }}
{{- end }}

{{/* The store URL the chart itself stores, or "" when an existing Secret is used. */}}
{{- define "gnomon.storeUrl" -}}
{{- if .Values.store.existingSecret }}
{{- else if .Values.store.url }}
{{- .Values.store.url }}
{{- else if .Values.allInOne }}
{{- print "sqlite:/var/lib/gnomon/gnomon.db" }}
{{- end }}
{{- end }}

{{/*
The Secret holding the store URL: store.existingSecret; else the chart's own
Secret when it has a URL to put there; else "<fullname>-store", a Secret the
installer creates (the chart never invents a database password).
*/}}
{{- define "gnomon.storeSecretName" -}}
{{- if .Values.store.existingSecret }}
{{- .Values.store.existingSecret }}
{{- else if include "gnomon.storeUrl" . }}
{{- include "gnomon.secretName" . }}
{{- else }}
{{- include "gnomon.fullname" . }}-store
{{- end }}
{{- end }}
{{- define "gnomon.storeSecretKey" -}}
{{- if .Values.store.existingSecret }}{{ .Values.store.existingSecretKey }}{{ else }}store-url{{ end }}
{{- end }}
{{- define "gnomon.clusterTokenSecretName" -}}
{{- default (include "gnomon.secretName" .) .Values.clusterToken.existingSecret }}
{{- end }}
{{- define "gnomon.clusterTokenSecretKey" -}}
{{- if .Values.clusterToken.existingSecret }}{{ .Values.clusterToken.existingSecretKey }}{{ else }}cluster-token{{ end }}
{{- end }}

{{- define "gnomon.adminTokenSecretName" -}}
{{- default (include "gnomon.secretName" .) .Values.adminToken.existingSecret }}
{{- end }}
{{- define "gnomon.adminTokenSecretKey" -}}
{{- if .Values.adminToken.existingSecret }}{{ .Values.adminToken.existingSecretKey }}{{ else }}admin-token{{ end }}
{{- end }}

{{/* Refuses settings that cannot work. */}}
{{- define "gnomon.validate" -}}
{{- if hasKey .Values.config "partitions" }}
{{- fail "config.partitions: set the chart's partitions value instead (it also reaches the migration Job, which records it in a new store)" }}
{{- end }}
{{- if and (not .Values.allInOne) (hasPrefix "sqlite:" (toString .Values.store.url)) }}
{{- fail "store.url: SQLite is a local file and cannot be shared between pods; use mysql://... or allInOne=true" }}
{{- end }}
{{- if and .Values.sampleExecutor.enabled (not .Values.sampleExecutor.accessTokenSecret.name) }}
{{- fail "sampleExecutor.accessTokenSecret.name: name the Secret holding the group's access token (gnomonctl group create prints it)" }}
{{- end }}
{{- if .Values.genericExecutor.enabled }}
{{- if not .Values.genericExecutor.app }}
{{- fail "genericExecutor.app: name the group (app name) the generic executor registers under (gnomonctl group create <app>)" }}
{{- end }}
{{- if not .Values.genericExecutor.accessTokenSecret.name }}
{{- fail "genericExecutor.accessTokenSecret.name: name the Secret holding the group's access token (gnomonctl group create prints it)" }}
{{- end }}
{{- end }}
{{- if .Values.tls.enabled }}
{{- if and .Values.tls.existingSecret .Values.tls.certManager.enabled }}
{{- fail "tls: give either tls.existingSecret or tls.certManager.enabled, not both (cert-manager writes its own Secret; name it with tls.certManager.secretName)" }}
{{- end }}
{{- if and .Values.tls.certManager.enabled (not .Values.tls.certManager.issuerRef.name) }}
{{- fail "tls.certManager.issuerRef.name: name the cert-manager Issuer (or ClusterIssuer, with issuerRef.kind) that signs gnomon's certificate" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Service address of a role ("registry", "log", "scheduler"), host:port. */}}
{{- define "gnomon.endpoint" -}}
{{- $ := index . 0 -}}
{{- if $.Values.allInOne -}}
{{ include "gnomon.fullname" $ }}:{{ $.Values.port }}
{{- else -}}
{{ include "gnomon.fullname" $ }}-{{ index . 1 }}:{{ $.Values.port }}
{{- end -}}
{{- end }}

{{/*
The headless Service of the pods that run the scheduler role (all in one:
the gnomond pod; per role: the scheduler pods), one DNS record per pod.
Executors connect out to every scheduler replica (gnomon.v1.Dispatch.Connect):
GNOMON_SCHEDULERS names this Service and the executor resolves it to every
pod's address. See docs/executor-protocol.md, "Finding the replicas".
*/}}
{{- define "gnomon.schedulersService" -}}
{{ include "gnomon.fullname" . }}-schedulers
{{- end }}
{{- define "gnomon.schedulersEndpoint" -}}
{{ include "gnomon.schedulersService" . }}:{{ .Values.port }}
{{- end }}
{{/* The component label of the pods that run the scheduler role. */}}
{{- define "gnomon.schedulerComponent" -}}
{{ ternary "server" "scheduler" .Values.allInOne }}
{{- end }}

{{/*
The gnomond pod spec shared by the role Deployments.
Call with (dict "root" $ "role" "scheduler" "roles" "scheduler" "cfg" .Values.scheduler).
*/}}
{{- define "gnomon.podTemplate" -}}
{{- $ := .root -}}
{{- $cfg := .cfg -}}
{{- $role := .role -}}
metadata:
  labels:
    {{- include "gnomon.labels" $ | nindent 4 }}
    app.kubernetes.io/component: {{ .role }}
    {{- with $.Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    # Rolls the pods when what they read from Secrets changes (see gnomon.secretChecksum).
    checksum/secret: {{ include "gnomon.secretChecksum" $ }}
    {{- with (merge (dict) ($cfg.podAnnotations | default dict) ($.Values.podAnnotations | default dict)) }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ include "gnomon.serviceAccountName" $ }}
  automountServiceAccountToken: {{ $.Values.serviceAccount.automountServiceAccountToken }}
  {{- with $.Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $.Values.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  terminationGracePeriodSeconds: {{ $.Values.terminationGracePeriodSeconds }}
  securityContext:
    {{- toYaml $.Values.podSecurityContext | nindent 4 }}
  {{- with $.Values.initContainers }}
  initContainers:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: gnomond
      image: {{ include "gnomon.image" $ | quote }}
      imagePullPolicy: {{ $.Values.image.pullPolicy }}
      command:
        {{- toYaml $.Values.image.command | nindent 8 }}
      args:
        - --roles={{ .roles }}
        - --listen=0.0.0.0:{{ $.Values.port }}
        {{- with $cfg.extraArgs }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      env:
        - name: GNOMON_STORE
          valueFrom:
            secretKeyRef:
              name: {{ include "gnomon.storeSecretName" $ }}
              key: {{ include "gnomon.storeSecretKey" $ }}
        {{- if not $.Values.allInOne }}
        {{- /* All roles in one process need none: gnomond makes its own. */}}
        - name: GNOMON_CLUSTER_TOKEN
          valueFrom:
            secretKeyRef:
              name: {{ include "gnomon.clusterTokenSecretName" $ }}
              key: {{ include "gnomon.clusterTokenSecretKey" $ }}
        {{- end }}
        # Fixed at install (docs/operations.md, "Scheduler partitions"): a
        # pod given another count than the store's refuses to start.
        - name: GNOMON_PARTITIONS
          value: {{ $.Values.partitions | quote }}
        {{- if eq .role "scheduler" }}
        - name: GNOMON_REGISTRY_ENDPOINT
          value: {{ include "gnomon.endpoint" (list $ "registry") | quote }}
        {{- end }}
        {{- if $.Values.tls.enabled }}
        {{- include "gnomon.serverTlsEnv" $ | nindent 8 }}
        - name: GNOMON_TLS_RELOAD_INTERVAL
          value: {{ $.Values.tls.reloadInterval | quote }}
        {{- if has .role (list "scheduler" "server") }}
        # The name in the registry's certificate (gnomonctl in this pod uses it too).
        - name: GNOMON_TLS_SERVER_NAME
          value: {{ include "gnomon.registryServerName" $ | quote }}
        {{- end }}
        {{- end }}
        # Read when the store has no admin token yet; never printed.
        - name: GNOMON_ADMIN_TOKEN_FILE
          value: /etc/gnomon/admin/admin-token
        {{- if $.Values.metrics.enabled }}
        - name: GNOMON_METRICS_LISTEN
          value: "0.0.0.0:{{ $.Values.metrics.port }}"
        {{- end }}
        {{- if $.Values.http.enabled }}
        - name: GNOMON_HTTP_LISTEN
          value: "0.0.0.0:{{ $.Values.http.port }}"
        # The web console's files, in the image.
        - name: GNOMON_CONSOLE_DIR
          value: /usr/share/gnomon/console
        {{- end }}
        {{- range $k, $v := $.Values.config }}
        - name: GNOMON_{{ $k | replace "-" "_" | upper }}
          value: {{ toString $v | quote }}
        {{- end }}
        {{- with $cfg.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      ports:
        - name: grpc
          containerPort: {{ $.Values.port }}
          protocol: TCP
        {{- if $.Values.metrics.enabled }}
        - name: metrics
          containerPort: {{ $.Values.metrics.port }}
          protocol: TCP
        {{- end }}
        {{- if $.Values.http.enabled }}
        - name: http
          containerPort: {{ $.Values.http.port }}
          protocol: TCP
        {{- end }}
      # Startup and liveness ask the "liveness" service, which stays SERVING
      # while the process serves: a store outage must not restart pods.
      # Readiness asks the overall status, NOT_SERVING while the store is
      # unreachable or a scheduler cannot hold its partitions. With TLS the
      # asking is done by gnomonctl (kubelet's gRPC probe cannot do TLS).
      startupProbe:
        {{- include "gnomon.probeHandler" (dict "root" $ "port" $.Values.port "service" "liveness") | nindent 8 }}
        periodSeconds: {{ $.Values.probes.startup.periodSeconds }}
        failureThreshold: {{ $.Values.probes.startup.failureThreshold }}
      livenessProbe:
        {{- include "gnomon.probeHandler" (dict "root" $ "port" $.Values.port "service" "liveness") | nindent 8 }}
        periodSeconds: {{ $.Values.probes.liveness.periodSeconds }}
        timeoutSeconds: {{ $.Values.probes.liveness.timeoutSeconds }}
        failureThreshold: {{ $.Values.probes.liveness.failureThreshold }}
      readinessProbe:
        {{- include "gnomon.probeHandler" (dict "root" $ "port" $.Values.port "service" "") | nindent 8 }}
        periodSeconds: {{ $.Values.probes.readiness.periodSeconds }}
        timeoutSeconds: {{ $.Values.probes.readiness.timeoutSeconds }}
        failureThreshold: {{ $.Values.probes.readiness.failureThreshold }}
      resources:
        {{- toYaml (default $.Values.resources $cfg.resources) | nindent 8 }}
      securityContext:
        {{- toYaml $.Values.securityContext | nindent 8 }}
      volumeMounts:
        - name: tmp
          mountPath: /tmp
        - name: run
          mountPath: /var/run/gnomon
        - name: admin-token
          mountPath: /etc/gnomon/admin
          readOnly: true
        {{- if $.Values.allInOne }}
        - name: data
          mountPath: /var/lib/gnomon
        {{- end }}
        {{- if $.Values.tls.enabled }}
        {{- include "gnomon.tlsVolumeMount" $ | nindent 8 }}
        {{- end }}
        {{- with $.Values.extraVolumeMounts }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    {{- with $.Values.sidecars }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  volumes:
    - name: tmp
      emptyDir: {}
    - name: run
      emptyDir: {}
    - name: admin-token
      secret:
        secretName: {{ include "gnomon.adminTokenSecretName" $ }}
        items:
          - key: {{ include "gnomon.adminTokenSecretKey" $ }}
            path: admin-token
        defaultMode: {{ include "gnomon.secretFileMode" $ }}
    {{- if $.Values.tls.enabled }}
    {{- include "gnomon.tlsVolume" (list $ (include "gnomon.tlsSecretName" $)) | nindent 4 }}
    {{- end }}
    {{- if $.Values.allInOne }}
    - name: data
      {{- if $.Values.persistence.enabled }}
      persistentVolumeClaim:
        claimName: {{ default (include "gnomon.fullname" $) $.Values.persistence.existingClaim }}
      {{- else }}
      emptyDir: {}
      {{- end }}
    {{- end }}
    {{- with $.Values.extraVolumes }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $.Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $.Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $.Values.topologySpreadConstraints }}
  {{- /* An entry without labelSelector spreads the pods of this role. */}}
  {{- $own := dict "labelSelector" (dict "matchLabels" (fromYaml (include "gnomon.selectorLabels" (list $ $role)))) }}
  {{- $spread := list }}
  {{- range . }}
  {{- if hasKey . "labelSelector" }}
  {{- $spread = append $spread . }}
  {{- else }}
  {{- /* deepCopy: merge writes into its first argument, here the values. */}}
  {{- $spread = append $spread (merge (deepCopy .) $own) }}
  {{- end }}
  {{- end }}
  topologySpreadConstraints:
    {{- toYaml $spread | nindent 4 }}
  {{- end }}
  {{- if $.Values.affinity }}
  affinity:
    {{- toYaml $.Values.affinity | nindent 4 }}
  {{- else if not $.Values.allInOne }}
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 100
          podAffinityTerm:
            topologyKey: kubernetes.io/hostname
            labelSelector:
              matchLabels:
                {{- include "gnomon.selectorLabels" (list $ .role) | nindent 16 }}
    {{- end }}
{{- end }}

{{/* Names of the gnomond Services, comma-separated (the headless one of the scheduler pods last). */}}
{{- define "gnomon.serviceNames" -}}
{{- $fn := include "gnomon.fullname" . -}}
{{- if .Values.allInOne -}}
{{ $fn }}
{{- else -}}
{{ $fn }}-scheduler,{{ $fn }}-registry,{{ $fn }}-log
{{- end -}}
,{{ include "gnomon.schedulersService" . }}
{{- end }}

{{/* The name scrapers verify in gnomond's certificate: tls.serverName, else the first Service's. */}}
{{- define "gnomon.metricsServerName" -}}
{{- default (first (splitList "," (include "gnomon.serviceNames" .))) .Values.tls.serverName }}
{{- end }}

{{/* The sample executor's TLS Secret: its own, else gnomond's. */}}
{{- define "gnomon.executorTlsSecretName" -}}
{{- default (include "gnomon.tlsSecretName" .) .Values.sampleExecutor.tls.existingSecret }}
{{- end }}

{{/* The generic executor's TLS Secret: its own, else gnomond's. */}}
{{- define "gnomon.genericExecutorTlsSecretName" -}}
{{- default (include "gnomon.tlsSecretName" .) .Values.genericExecutor.tls.existingSecret }}
{{- end }}

{{/*
A monitor endpoint's scheme and TLS settings with TLS on (gnomond and
executors then serve /metrics over HTTPS with their certificate): verify
against ca.crt of the Secret given. Call with (list $ monitorValues "secret-name").
*/}}
{{- define "gnomon.metricsTls" -}}
{{- $ := index . 0 -}}
scheme: https
tlsConfig:
  {{- with (index . 1).tlsConfig }}
  {{- toYaml . | nindent 2 }}
  {{- else }}
  ca:
    secret:
      name: {{ index . 2 }}
      key: ca.crt
  serverName: {{ include "gnomon.metricsServerName" $ }}
  {{- end }}
{{- end }}

{{/* Where the TLS Secret is mounted (a directory, never subPath: see tlsVolume). */}}
{{- define "gnomon.tlsDir" -}}
/etc/gnomon/tls
{{- end }}

{{/*
The Secret holding gnomond's certificate: the user's, the one cert-manager
writes, or else the one the chart generates (see gnomon.generatedTls).
*/}}
{{- define "gnomon.tlsSecretName" -}}
{{- if .Values.tls.existingSecret }}
{{- .Values.tls.existingSecret }}
{{- else if .Values.tls.certManager.enabled }}
{{- default (printf "%s-tls" (include "gnomon.fullname" .)) .Values.tls.certManager.secretName }}
{{- else }}
{{- include "gnomon.fullname" . }}-tls
{{- end }}
{{- end }}

{{/* Whether the chart generates gnomond's certificate: TLS on, and neither a Secret of the user's nor cert-manager. */}}
{{- define "gnomon.tlsGenerated" -}}
{{- if and .Values.tls.enabled (not .Values.tls.existingSecret) (not .Values.tls.certManager.enabled) }}true{{ end }}
{{- end }}

{{/* The Secret holding the generated CA's certificate and key; mounted nowhere. */}}
{{- define "gnomon.tlsCaSecretName" -}}
{{- include "gnomon.fullname" . }}-tls-ca
{{- end }}

{{/*
The DNS names of gnomond's certificate, as a JSON list: every gnomon
Service in each form a client may dial (the headless one too, the name
executors verify on the scheduler pods they dial by address), then
tls.certManager.extraDnsNames. cert-manager's Certificate and the generated
certificate both carry exactly these.
*/}}
{{- define "gnomon.tlsDnsNames" -}}
{{- $ns := .Release.Namespace }}
{{- $names := list }}
{{- range $svc := splitList "," (include "gnomon.serviceNames" .) }}
{{- $names = concat $names (list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.%s" $svc $ns $.Values.tls.certManager.clusterDomain)) }}
{{- end }}
{{- toJson (concat $names ($.Values.tls.certManager.extraDnsNames | default list)) }}
{{- end }}

{{/*
The generated certificate (tls.enabled without tls.existingSecret or
tls.certManager), as JSON: {"ca": CA Secret data, "tls": TLS Secret data,
"annotations": the TLS Secret's}. A CA (tls.generated.caValidityDays) signs
one certificate (tls.generated.validityDays) for the names of
gnomon.tlsDnsNames plus localhost and 127.0.0.1 (and
tls.certManager.ipAddresses), extended key usages server and client auth.

Stable across upgrades: the Secrets already in the cluster are read back
(lookup) and kept as they are while the CA is the same, the names are the
same (their hash is an annotation) and the certificate has more than
tls.generated.renewBeforeDays left (its expiry is an annotation). Otherwise
a new certificate is signed by the kept CA: ca.crt, which clients outside
the cluster hold, does not change; the pods re-read the files in place.
Only a render without the CA's Secret (install, or helm template, which
cannot lookup) makes a new CA. Computed once per render (kept in .Release).
*/}}
{{- define "gnomon.generatedTls" -}}
{{- $memo := printf "gnomonGeneratedTls/%s" (include "gnomon.tlsSecretName" .) }}
{{- if not (hasKey .Release $memo) }}
{{- $g := .Values.tls.generated }}
{{- $dns := concat (fromJsonArray (include "gnomon.tlsDnsNames" .)) (list "localhost") }}
{{- $ips := concat (list "127.0.0.1") (.Values.tls.certManager.ipAddresses | default list) }}
{{- $namesHash := toJson (dict "dns" $dns "ips" $ips) | sha256sum }}
{{- $oldCa := lookup "v1" "Secret" .Release.Namespace (include "gnomon.tlsCaSecretName" .) }}
{{- $oldTls := lookup "v1" "Secret" .Release.Namespace (include "gnomon.tlsSecretName" .) }}
{{- /* Helm's templates do not short-circuit "and": test step by step. */}}
{{- $caData := dict }}
{{- if $oldCa }}
{{- $caData = $oldCa.data | default dict }}
{{- end }}
{{- $ca := dict }}
{{- if and (hasKey $caData "tls.crt") (hasKey $caData "tls.key") }}
{{- $ca = buildCustomCert (index $caData "tls.crt") (index $caData "tls.key") }}
{{- else }}
{{- $ca = genCA (printf "%s-ca" (include "gnomon.fullname" .)) (int $g.caValidityDays) }}
{{- $caData = dict "tls.crt" ($ca.Cert | b64enc) "tls.key" ($ca.Key | b64enc) }}
{{- end }}
{{- $keep := false }}
{{- $tlsData := dict }}
{{- $ann := dict }}
{{- if $oldTls }}
{{- $tlsData = $oldTls.data | default dict }}
{{- $ann = ($oldTls.metadata | default dict).annotations | default dict }}
{{- if and (hasKey $tlsData "tls.crt") (hasKey $tlsData "tls.key") (eq (index $tlsData "ca.crt" | default "") (index $caData "tls.crt")) (eq (index $ann "gnomon/names-sha256" | default "") $namesHash) }}
{{- $left := sub (toDate "2006-01-02T15:04:05Z07:00" (index $ann "gnomon/not-after" | default "") | unixEpoch | atoi) (now | unixEpoch | atoi) }}
{{- $keep = gt $left (mul $g.renewBeforeDays 86400 | int) }}
{{- end }}
{{- end }}
{{- if not $keep }}
{{- $cert := genSignedCert (first $dns) $ips $dns (int $g.validityDays) $ca }}
{{- $tlsData = dict "tls.crt" ($cert.Cert | b64enc) "tls.key" ($cert.Key | b64enc) "ca.crt" (index $caData "tls.crt") }}
{{- $notAfter := dateInZone "2006-01-02T15:04:05Z07:00" (now | dateModify (printf "+%dh" (mul $g.validityDays 24))) "UTC" }}
{{- $ann = dict "gnomon/names-sha256" $namesHash "gnomon/not-after" $notAfter }}
{{- end }}
{{- $_ := set .Release $memo (dict "ca" $caData "tls" (pick $tlsData "tls.crt" "tls.key" "ca.crt") "annotations" (pick $ann "gnomon/names-sha256" "gnomon/not-after")) }}
{{- end }}
{{- toJson (index .Release $memo) }}
{{- end }}

{{/*
The name the scheduler verifies in the registry's certificate: tls.serverName,
else the registry Service it dials. All in one it dials its own registry at
127.0.0.1, which the certificate does not name: the Service's name instead.
*/}}
{{- define "gnomon.registryServerName" -}}
{{- if .Values.tls.serverName }}
{{- .Values.tls.serverName }}
{{- else if .Values.allInOne }}
{{- include "gnomon.fullname" . }}
{{- else }}
{{- include "gnomon.fullname" . }}-registry
{{- end }}
{{- end }}

{{/*
The TLS volume: the whole Secret as a read-only directory. Not subPath: a
subPath mount is a copy taken at start and never sees the Secret change,
whereas kubelet swaps a directory's files in place on renewal, and the
processes re-read them. Files readable by the pod's fsGroup only when there
is one (0440), else by everyone in the container (0444).
Call with (list $ "secret-name").
*/}}
{{/* Mode of mounted Secret files: group-readable (0440) when the pod has
an fsGroup to read them through, else world-readable (0444). */}}
{{- define "gnomon.secretFileMode" -}}
{{ ternary 288 292 (hasKey (.Values.podSecurityContext | default dict) "fsGroup") }}
{{- end }}
{{- define "gnomon.tlsVolume" -}}
{{- $ := index . 0 -}}
- name: tls
  secret:
    secretName: {{ index . 1 }}
    defaultMode: {{ include "gnomon.secretFileMode" $ }}
{{- end }}
{{- define "gnomon.tlsVolumeMount" -}}
- name: tls
  mountPath: {{ include "gnomon.tlsDir" . }}
  readOnly: true
{{- end }}

{{/*
The certificate files as environment (gnomond's flags, the executor SDK's and
gnomonctl's variables). An executor serves no gRPC: its certificate is the
client certificate it presents to gnomond (and serves its /metrics over HTTPS).
*/}}
{{- define "gnomon.tlsFileEnv" -}}
{{- $dir := include "gnomon.tlsDir" . -}}
- name: GNOMON_TLS_CERT
  value: {{ $dir }}/tls.crt
- name: GNOMON_TLS_KEY
  value: {{ $dir }}/tls.key
- name: GNOMON_TLS_CA
  value: {{ $dir }}/ca.crt
{{- end }}
{{/* gnomond's TLS environment: the files, and whether clients need a certificate. */}}
{{- define "gnomon.serverTlsEnv" -}}
{{ include "gnomon.tlsFileEnv" . }}
- name: GNOMON_TLS_REQUIRE_CLIENT_CERT
  value: {{ .Values.tls.requireClientCert | toString | quote }}
{{- end }}

{{/*
A probe's handler. kubelet's gRPC probe speaks plaintext only, so with TLS
on it runs `gnomonctl health check` in the container, which takes the TLS
files from the container's GNOMON_TLS_* variables (presenting the pod's
certificate if clients must have one) and checks the chain only: the pod
dials itself at 127.0.0.1 (see docs/kubernetes.md, "TLS").
Call with (dict "root" $ "port" 7070 "service" "liveness"); service "" asks
the overall status.
*/}}
{{- define "gnomon.probeHandler" -}}
{{- if .root.Values.tls.enabled -}}
exec:
  command:
    - gnomonctl
    - health
    - check
    - --server=127.0.0.1:{{ .port }}
    - --tls-server-name=*
    - --rpc-timeout=3s
    {{- with .service }}
    - --service={{ . }}
    {{- end }}
{{- else -}}
grpc:
  port: {{ .port }}
  {{- with .service }}
  service: {{ . }}
  {{- end }}
{{- end }}
{{- end }}
