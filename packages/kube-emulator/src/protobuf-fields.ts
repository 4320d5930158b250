// Protobuf field numbers of the built-in kinds kubectl creates through client-go's typed clients
// (Namespace, Secret, ConfigMap, Deployment) and of everything they reach. Facts taken from the
// generated.proto files of k8s.io/api (core/v1, apps/v1) and k8s.io/apimachinery (meta/v1,
// runtime, util/intstr, api/resource) at v0.33.1: one entry per message, `json=number:type`, where
// type is a scalar, another message, `[]` a repeated field and `map:` a map<string, type>. time,
// intstr, quantity, raw and duration are the types with their own JSON form (metav1.Time,
// IntOrString, resource.Quantity, RawExtension and FieldsV1, metav1.Duration).

export const MESSAGES: Record<string, string> = {
  AWSElasticBlockStoreVolumeSource: 'volumeID=1:string fsType=2:string partition=3:int32 readOnly=4:bool',
  Affinity: 'nodeAffinity=1:NodeAffinity podAffinity=2:PodAffinity podAntiAffinity=3:PodAntiAffinity',
  AppArmorProfile: 'type=1:string localhostProfile=2:string',
  AzureDiskVolumeSource: 'diskName=1:string diskURI=2:string cachingMode=3:string fsType=4:string readOnly=5:bool kind=6:string',
  AzureFileVolumeSource: 'secretName=1:string shareName=2:string readOnly=3:bool',
  CSIVolumeSource:
    'driver=1:string readOnly=2:bool fsType=3:string volumeAttributes=4:map:string ' +
    'nodePublishSecretRef=5:LocalObjectReference',
  Capabilities: 'add=1:[]string drop=2:[]string',
  CephFSVolumeSource:
    'monitors=1:[]string path=2:string user=3:string secretFile=4:string secretRef=5:LocalObjectReference ' +
    'readOnly=6:bool',
  CinderVolumeSource: 'volumeID=1:string fsType=2:string readOnly=3:bool secretRef=4:LocalObjectReference',
  ClusterTrustBundleProjection: 'name=1:string signerName=2:string labelSelector=3:LabelSelector optional=5:bool path=4:string',
  ConfigMap: 'metadata=1:ObjectMeta immutable=4:bool data=2:map:string binaryData=3:map:bytes',
  ConfigMapEnvSource: 'localObjectReference=1:LocalObjectReference optional=2:bool',
  ConfigMapKeySelector: 'localObjectReference=1:LocalObjectReference key=2:string optional=3:bool',
  ConfigMapProjection: 'localObjectReference=1:LocalObjectReference items=2:[]KeyToPath optional=4:bool',
  ConfigMapVolumeSource: 'localObjectReference=1:LocalObjectReference items=2:[]KeyToPath defaultMode=3:int32 optional=4:bool',
  Container:
    'name=1:string image=2:string command=3:[]string args=4:[]string workingDir=5:string ' +
    'ports=6:[]ContainerPort envFrom=19:[]EnvFromSource env=7:[]EnvVar resources=8:ResourceRequirements ' +
    'resizePolicy=23:[]ContainerResizePolicy restartPolicy=24:string volumeMounts=9:[]VolumeMount ' +
    'volumeDevices=21:[]VolumeDevice livenessProbe=10:Probe readinessProbe=11:Probe startupProbe=22:Probe ' +
    'lifecycle=12:Lifecycle terminationMessagePath=13:string terminationMessagePolicy=20:string ' +
    'imagePullPolicy=14:string securityContext=15:SecurityContext stdin=16:bool stdinOnce=17:bool tty=18:bool',
  ContainerPort: 'name=1:string hostPort=2:int32 containerPort=3:int32 protocol=4:string hostIP=5:string',
  ContainerResizePolicy: 'resourceName=1:string restartPolicy=2:string',
  Deployment: 'metadata=1:ObjectMeta spec=2:DeploymentSpec status=3:DeploymentStatus',
  DeploymentCondition:
    'type=1:string status=2:string lastUpdateTime=6:time lastTransitionTime=7:time reason=4:string ' +
    'message=5:string',
  DeploymentSpec:
    'replicas=1:int32 selector=2:LabelSelector template=3:PodTemplateSpec strategy=4:DeploymentStrategy ' +
    'minReadySeconds=5:int32 revisionHistoryLimit=6:int32 paused=7:bool progressDeadlineSeconds=9:int32',
  DeploymentStatus:
    'observedGeneration=1:int64 replicas=2:int32 updatedReplicas=3:int32 readyReplicas=7:int32 ' +
    'availableReplicas=4:int32 unavailableReplicas=5:int32 terminatingReplicas=9:int32 ' +
    'conditions=6:[]DeploymentCondition collisionCount=8:int32',
  DeploymentStrategy: 'type=1:string rollingUpdate=2:RollingUpdateDeployment',
  DownwardAPIProjection: 'items=1:[]DownwardAPIVolumeFile',
  DownwardAPIVolumeFile: 'path=1:string fieldRef=2:ObjectFieldSelector resourceFieldRef=3:ResourceFieldSelector mode=4:int32',
  DownwardAPIVolumeSource: 'items=1:[]DownwardAPIVolumeFile defaultMode=2:int32',
  EmptyDirVolumeSource: 'medium=1:string sizeLimit=2:quantity',
  EnvFromSource: 'prefix=1:string configMapRef=2:ConfigMapEnvSource secretRef=3:SecretEnvSource',
  EnvVar: 'name=1:string value=2:string valueFrom=3:EnvVarSource',
  EnvVarSource:
    'fieldRef=1:ObjectFieldSelector resourceFieldRef=2:ResourceFieldSelector ' +
    'configMapKeyRef=3:ConfigMapKeySelector secretKeyRef=4:SecretKeySelector',
  EphemeralContainer: 'ephemeralContainerCommon=1:EphemeralContainerCommon targetContainerName=2:string',
  EphemeralContainerCommon:
    'name=1:string image=2:string command=3:[]string args=4:[]string workingDir=5:string ' +
    'ports=6:[]ContainerPort envFrom=19:[]EnvFromSource env=7:[]EnvVar resources=8:ResourceRequirements ' +
    'resizePolicy=23:[]ContainerResizePolicy restartPolicy=24:string volumeMounts=9:[]VolumeMount ' +
    'volumeDevices=21:[]VolumeDevice livenessProbe=10:Probe readinessProbe=11:Probe startupProbe=22:Probe ' +
    'lifecycle=12:Lifecycle terminationMessagePath=13:string terminationMessagePolicy=20:string ' +
    'imagePullPolicy=14:string securityContext=15:SecurityContext stdin=16:bool stdinOnce=17:bool tty=18:bool',
  EphemeralVolumeSource: 'volumeClaimTemplate=1:PersistentVolumeClaimTemplate',
  ExecAction: 'command=1:[]string',
  FCVolumeSource: 'targetWWNs=1:[]string lun=2:int32 fsType=3:string readOnly=4:bool wwids=5:[]string',
  FlexVolumeSource: 'driver=1:string fsType=2:string secretRef=3:LocalObjectReference readOnly=4:bool options=5:map:string',
  FlockerVolumeSource: 'datasetName=1:string datasetUUID=2:string',
  GCEPersistentDiskVolumeSource: 'pdName=1:string fsType=2:string partition=3:int32 readOnly=4:bool',
  GRPCAction: 'port=1:int32 service=2:string',
  GitRepoVolumeSource: 'repository=1:string revision=2:string directory=3:string',
  GlusterfsVolumeSource: 'endpoints=1:string path=2:string readOnly=3:bool',
  HTTPGetAction: 'path=1:string port=2:intstr host=3:string scheme=4:string httpHeaders=5:[]HTTPHeader',
  HTTPHeader: 'name=1:string value=2:string',
  HostAlias: 'ip=1:string hostnames=2:[]string',
  HostPathVolumeSource: 'path=1:string type=2:string',
  ISCSIVolumeSource:
    'targetPortal=1:string iqn=2:string lun=3:int32 iscsiInterface=4:string fsType=5:string readOnly=6:bool ' +
    'portals=7:[]string chapAuthDiscovery=8:bool chapAuthSession=11:bool secretRef=10:LocalObjectReference ' +
    'initiatorName=12:string',
  ImageVolumeSource: 'reference=1:string pullPolicy=2:string',
  KeyToPath: 'key=1:string path=2:string mode=3:int32',
  LabelSelector: 'matchLabels=1:map:string matchExpressions=2:[]LabelSelectorRequirement',
  LabelSelectorRequirement: 'key=1:string operator=2:string values=3:[]string',
  Lifecycle: 'postStart=1:LifecycleHandler preStop=2:LifecycleHandler stopSignal=3:string',
  LifecycleHandler: 'exec=1:ExecAction httpGet=2:HTTPGetAction tcpSocket=3:TCPSocketAction sleep=4:SleepAction',
  LocalObjectReference: 'name=1:string',
  ManagedFieldsEntry:
    'manager=1:string operation=2:string apiVersion=3:string time=4:time fieldsType=6:string fieldsV1=7:raw ' +
    'subresource=8:string',
  NFSVolumeSource: 'server=1:string path=2:string readOnly=3:bool',
  Namespace: 'metadata=1:ObjectMeta spec=2:NamespaceSpec status=3:NamespaceStatus',
  NamespaceCondition: 'type=1:string status=2:string lastTransitionTime=4:time reason=5:string message=6:string',
  NamespaceSpec: 'finalizers=1:[]string',
  NamespaceStatus: 'phase=1:string conditions=2:[]NamespaceCondition',
  NodeAffinity:
    'requiredDuringSchedulingIgnoredDuringExecution=1:NodeSelector ' +
    'preferredDuringSchedulingIgnoredDuringExecution=2:[]PreferredSchedulingTerm',
  NodeSelector: 'nodeSelectorTerms=1:[]NodeSelectorTerm',
  NodeSelectorRequirement: 'key=1:string operator=2:string values=3:[]string',
  NodeSelectorTerm: 'matchExpressions=1:[]NodeSelectorRequirement matchFields=2:[]NodeSelectorRequirement',
  ObjectFieldSelector: 'apiVersion=1:string fieldPath=2:string',
  ObjectMeta:
    'name=1:string generateName=2:string namespace=3:string selfLink=4:string uid=5:string ' +
    'resourceVersion=6:string generation=7:int64 creationTimestamp=8:time deletionTimestamp=9:time ' +
    'deletionGracePeriodSeconds=10:int64 labels=11:map:string annotations=12:map:string ' +
    'ownerReferences=13:[]OwnerReference finalizers=14:[]string managedFields=17:[]ManagedFieldsEntry',
  OwnerReference: 'apiVersion=5:string kind=1:string name=3:string uid=4:string controller=6:bool blockOwnerDeletion=7:bool',
  PersistentVolumeClaimSpec:
    'accessModes=1:[]string selector=4:LabelSelector resources=2:VolumeResourceRequirements ' +
    'volumeName=3:string storageClassName=5:string volumeMode=6:string dataSource=7:TypedLocalObjectReference ' +
    'dataSourceRef=8:TypedObjectReference volumeAttributesClassName=9:string',
  PersistentVolumeClaimTemplate: 'metadata=1:ObjectMeta spec=2:PersistentVolumeClaimSpec',
  PersistentVolumeClaimVolumeSource: 'claimName=1:string readOnly=2:bool',
  PhotonPersistentDiskVolumeSource: 'pdID=1:string fsType=2:string',
  PodAffinity:
    'requiredDuringSchedulingIgnoredDuringExecution=1:[]PodAffinityTerm ' +
    'preferredDuringSchedulingIgnoredDuringExecution=2:[]WeightedPodAffinityTerm',
  PodAffinityTerm:
    'labelSelector=1:LabelSelector namespaces=2:[]string topologyKey=3:string ' +
    'namespaceSelector=4:LabelSelector matchLabelKeys=5:[]string mismatchLabelKeys=6:[]string',
  PodAntiAffinity:
    'requiredDuringSchedulingIgnoredDuringExecution=1:[]PodAffinityTerm ' +
    'preferredDuringSchedulingIgnoredDuringExecution=2:[]WeightedPodAffinityTerm',
  PodDNSConfig: 'nameservers=1:[]string searches=2:[]string options=3:[]PodDNSConfigOption',
  PodDNSConfigOption: 'name=1:string value=2:string',
  PodOS: 'name=1:string',
  PodReadinessGate: 'conditionType=1:string',
  PodResourceClaim: 'name=1:string resourceClaimName=3:string resourceClaimTemplateName=4:string',
  PodSchedulingGate: 'name=1:string',
  PodSecurityContext:
    'seLinuxOptions=1:SELinuxOptions windowsOptions=8:WindowsSecurityContextOptions runAsUser=2:int64 ' +
    'runAsGroup=6:int64 runAsNonRoot=3:bool supplementalGroups=4:[]int64 supplementalGroupsPolicy=12:string ' +
    'fsGroup=5:int64 sysctls=7:[]Sysctl fsGroupChangePolicy=9:string seccompProfile=10:SeccompProfile ' +
    'appArmorProfile=11:AppArmorProfile seLinuxChangePolicy=13:string',
  PodSpec:
    'volumes=1:[]Volume initContainers=20:[]Container containers=2:[]Container ' +
    'ephemeralContainers=34:[]EphemeralContainer restartPolicy=3:string terminationGracePeriodSeconds=4:int64 ' +
    'activeDeadlineSeconds=5:int64 dnsPolicy=6:string nodeSelector=7:map:string serviceAccountName=8:string ' +
    'serviceAccount=9:string automountServiceAccountToken=21:bool nodeName=10:string hostNetwork=11:bool ' +
    'hostPID=12:bool hostIPC=13:bool shareProcessNamespace=27:bool securityContext=14:PodSecurityContext ' +
    'imagePullSecrets=15:[]LocalObjectReference hostname=16:string subdomain=17:string affinity=18:Affinity ' +
    'schedulerName=19:string tolerations=22:[]Toleration hostAliases=23:[]HostAlias ' +
    'priorityClassName=24:string priority=25:int32 dnsConfig=26:PodDNSConfig ' +
    'readinessGates=28:[]PodReadinessGate runtimeClassName=29:string enableServiceLinks=30:bool ' +
    'preemptionPolicy=31:string overhead=32:map:quantity ' +
    'topologySpreadConstraints=33:[]TopologySpreadConstraint setHostnameAsFQDN=35:bool os=36:PodOS ' +
    'hostUsers=37:bool schedulingGates=38:[]PodSchedulingGate resourceClaims=39:[]PodResourceClaim ' +
    'resources=40:ResourceRequirements',
  PodTemplateSpec: 'metadata=1:ObjectMeta spec=2:PodSpec',
  PortworxVolumeSource: 'volumeID=1:string fsType=2:string readOnly=3:bool',
  PreferredSchedulingTerm: 'weight=1:int32 preference=2:NodeSelectorTerm',
  Probe:
    'handler=1:ProbeHandler initialDelaySeconds=2:int32 timeoutSeconds=3:int32 periodSeconds=4:int32 ' +
    'successThreshold=5:int32 failureThreshold=6:int32 terminationGracePeriodSeconds=7:int64',
  ProbeHandler: 'exec=1:ExecAction httpGet=2:HTTPGetAction tcpSocket=3:TCPSocketAction grpc=4:GRPCAction',
  ProjectedVolumeSource: 'sources=1:[]VolumeProjection defaultMode=2:int32',
  QuobyteVolumeSource: 'registry=1:string volume=2:string readOnly=3:bool user=4:string group=5:string tenant=6:string',
  RBDVolumeSource:
    'monitors=1:[]string image=2:string fsType=3:string pool=4:string user=5:string keyring=6:string ' +
    'secretRef=7:LocalObjectReference readOnly=8:bool',
  ResourceClaim: 'name=1:string request=2:string',
  ResourceFieldSelector: 'containerName=1:string resource=2:string divisor=3:quantity',
  ResourceRequirements: 'limits=1:map:quantity requests=2:map:quantity claims=3:[]ResourceClaim',
  RollingUpdateDeployment: 'maxUnavailable=1:intstr maxSurge=2:intstr',
  SELinuxOptions: 'user=1:string role=2:string type=3:string level=4:string',
  ScaleIOVolumeSource:
    'gateway=1:string system=2:string secretRef=3:LocalObjectReference sslEnabled=4:bool ' +
    'protectionDomain=5:string storagePool=6:string storageMode=7:string volumeName=8:string fsType=9:string ' +
    'readOnly=10:bool',
  SeccompProfile: 'type=1:string localhostProfile=2:string',
  Secret: 'metadata=1:ObjectMeta immutable=5:bool data=2:map:bytes stringData=4:map:string type=3:string',
  SecretEnvSource: 'localObjectReference=1:LocalObjectReference optional=2:bool',
  SecretKeySelector: 'localObjectReference=1:LocalObjectReference key=2:string optional=3:bool',
  SecretProjection: 'localObjectReference=1:LocalObjectReference items=2:[]KeyToPath optional=4:bool',
  SecretVolumeSource: 'secretName=1:string items=2:[]KeyToPath defaultMode=3:int32 optional=4:bool',
  SecurityContext:
    'capabilities=1:Capabilities privileged=2:bool seLinuxOptions=3:SELinuxOptions ' +
    'windowsOptions=10:WindowsSecurityContextOptions runAsUser=4:int64 runAsGroup=8:int64 runAsNonRoot=5:bool ' +
    'readOnlyRootFilesystem=6:bool allowPrivilegeEscalation=7:bool procMount=9:string ' +
    'seccompProfile=11:SeccompProfile appArmorProfile=12:AppArmorProfile',
  ServiceAccountTokenProjection: 'audience=1:string expirationSeconds=2:int64 path=3:string',
  SleepAction: 'seconds=1:int64',
  StorageOSVolumeSource:
    'volumeName=1:string volumeNamespace=2:string fsType=3:string readOnly=4:bool ' +
    'secretRef=5:LocalObjectReference',
  Sysctl: 'name=1:string value=2:string',
  TCPSocketAction: 'port=1:intstr host=2:string',
  Toleration: 'key=1:string operator=2:string value=3:string effect=4:string tolerationSeconds=5:int64',
  TopologySpreadConstraint:
    'maxSkew=1:int32 topologyKey=2:string whenUnsatisfiable=3:string labelSelector=4:LabelSelector ' +
    'minDomains=5:int32 nodeAffinityPolicy=6:string nodeTaintsPolicy=7:string matchLabelKeys=8:[]string',
  TypedLocalObjectReference: 'apiGroup=1:string kind=2:string name=3:string',
  TypedObjectReference: 'apiGroup=1:string kind=2:string name=3:string namespace=4:string',
  Volume: 'name=1:string volumeSource=2:VolumeSource',
  VolumeDevice: 'name=1:string devicePath=2:string',
  VolumeMount:
    'name=1:string readOnly=2:bool recursiveReadOnly=7:string mountPath=3:string subPath=4:string ' +
    'mountPropagation=5:string subPathExpr=6:string',
  VolumeProjection:
    'secret=1:SecretProjection downwardAPI=2:DownwardAPIProjection configMap=3:ConfigMapProjection ' +
    'serviceAccountToken=4:ServiceAccountTokenProjection clusterTrustBundle=5:ClusterTrustBundleProjection',
  VolumeResourceRequirements: 'limits=1:map:quantity requests=2:map:quantity',
  VolumeSource:
    'hostPath=1:HostPathVolumeSource emptyDir=2:EmptyDirVolumeSource ' +
    'gcePersistentDisk=3:GCEPersistentDiskVolumeSource ' +
    'awsElasticBlockStore=4:AWSElasticBlockStoreVolumeSource gitRepo=5:GitRepoVolumeSource ' +
    'secret=6:SecretVolumeSource nfs=7:NFSVolumeSource iscsi=8:ISCSIVolumeSource ' +
    'glusterfs=9:GlusterfsVolumeSource persistentVolumeClaim=10:PersistentVolumeClaimVolumeSource ' +
    'rbd=11:RBDVolumeSource flexVolume=12:FlexVolumeSource cinder=13:CinderVolumeSource ' +
    'cephfs=14:CephFSVolumeSource flocker=15:FlockerVolumeSource downwardAPI=16:DownwardAPIVolumeSource ' +
    'fc=17:FCVolumeSource azureFile=18:AzureFileVolumeSource configMap=19:ConfigMapVolumeSource ' +
    'vsphereVolume=20:VsphereVirtualDiskVolumeSource quobyte=21:QuobyteVolumeSource ' +
    'azureDisk=22:AzureDiskVolumeSource photonPersistentDisk=23:PhotonPersistentDiskVolumeSource ' +
    'projected=26:ProjectedVolumeSource portworxVolume=24:PortworxVolumeSource scaleIO=25:ScaleIOVolumeSource ' +
    'storageos=27:StorageOSVolumeSource csi=28:CSIVolumeSource ephemeral=29:EphemeralVolumeSource ' +
    'image=30:ImageVolumeSource',
  VsphereVirtualDiskVolumeSource: 'volumePath=1:string fsType=2:string storagePolicyName=3:string storagePolicyID=4:string',
  WeightedPodAffinityTerm: 'weight=1:int32 podAffinityTerm=2:PodAffinityTerm',
  WindowsSecurityContextOptions: 'gmsaCredentialSpecName=1:string gmsaCredentialSpec=2:string runAsUserName=3:string hostProcess=4:bool',
  'runtime.TypeMeta': 'apiVersion=1:string kind=2:string',
  'runtime.Unknown': 'typeMeta=1:runtime.TypeMeta raw=2:bytes contentEncoding=3:string contentType=4:string',
};
