"""Every ssh_config keyword OpenSSH knows, and what Pairbench does with it.

The table of docs/guide/ssh-config.md lists them as this module treats them (a test checks)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Use(enum.Enum):
    """What Pairbench does with a keyword set for an alias."""

    USED = "used"  # resolved as ssh does and honoured when connecting
    RESOLVED = "resolved"  # read to resolve the others (blocks, files, canonical names)
    NOT_NEEDED = "not needed"  # no effect on the connections Pairbench makes; ignored
    NOT_HONOURED = "not honoured"  # changes how ssh connects; the import says so per alias
    OBSOLETE = "obsolete"  # ssh ignores it too (deprecated or unsupported)


@dataclass(frozen=True, slots=True)
class Keyword:
    """One keyword: its name as the man page spells it, its use, and a few words why."""

    name: str
    use: Use
    note: str = ""


def _table(*rows: tuple[str, Use, str]) -> dict[str, Keyword]:
    return {name.lower(): Keyword(name, use, note) for name, use, note in rows}


U, R, N, H, X = Use.USED, Use.RESOLVED, Use.NOT_NEEDED, Use.NOT_HONOURED, Use.OBSOLETE

KEYWORDS: dict[str, Keyword] = _table(
    ("Host", R, "blocks, matched against the alias as typed"),
    ("Match", R, "host, originalhost, user, localuser, all, canonical, final; exec refuses"),
    ("Include", R, "globs; relative paths under ~/.ssh; conditional inside Host/Match"),
    ("HostName", U, "%h and %% expanded; lower-cased as ssh does"),
    ("Port", U, "a number or a service name"),
    ("User", U, "default: your local user name"),
    ("IdentityFile", U, "all of them, in order; ssh's defaults when none"),
    ("IdentitiesOnly", U, "only the files' keys, not the agent's"),
    ("CertificateFile", U, "offered with their keys"),
    ("IdentityAgent", U, "the agent socket, or none"),
    ("StrictHostKeyChecking", U, "accept-new pins a first key; no/off are treated as accept-new"),
    ("UserKnownHostsFile", U, "the files host keys are looked up in, or none"),
    ("HostKeyAlias", U, "the name host keys are looked up under"),
    ("ProxyJump", U, "every form: aliases, user@host:port, lists, ssh:// URIs, [IPv6]:port"),
    ("ProxyCommand", U, "run through your shell as ssh runs it (%h %p %r %n %k)"),
    ("CanonicalizeHostname", R, "the second pass; a name that needs DNS refuses the alias"),
    ("CanonicalDomains", R, "needed DNS refuses the alias"),
    ("CanonicalizeMaxDots", R, ""),
    ("CanonicalizeFallbackLocal", R, ""),
    ("CanonicalizePermittedCNAMEs", R, "needed DNS refuses the alias"),
    ("IgnoreUnknown", R, "as ssh: unknown keywords matching it are skipped"),
    ("ProxyUseFdpass", R, "yes refuses the alias"),
    ("PreferredAuthentications", H, ""),
    ("PubkeyAuthentication", H, ""),
    ("PasswordAuthentication", H, "Pairbench logs in with keys, or a password you choose"),
    ("KbdInteractiveAuthentication", H, ""),
    ("KbdInteractiveDevices", H, ""),
    ("ChallengeResponseAuthentication", H, ""),
    ("HostbasedAuthentication", H, ""),
    ("HostbasedAcceptedAlgorithms", H, ""),
    ("HostbasedKeyTypes", H, ""),
    ("EnableSSHKeysign", H, ""),
    ("GSSAPIAuthentication", H, ""),
    ("GSSAPIDelegateCredentials", H, ""),
    ("GSSAPIKeyExchange", H, ""),
    ("GSSAPIClientIdentity", H, ""),
    ("GSSAPIServerIdentity", H, ""),
    ("GSSAPIRenewalForcesRekey", H, ""),
    ("GSSAPITrustDNS", H, ""),
    ("GSSAPIKexAlgorithms", H, ""),
    ("PKCS11Provider", H, "keys on a token are not used"),
    ("SmartcardDevice", H, ""),
    ("SecurityKeyProvider", H, ""),
    ("Ciphers", H, "Pairbench uses asyncssh's algorithms"),
    ("MACs", H, ""),
    ("KexAlgorithms", H, ""),
    ("HostKeyAlgorithms", H, ""),
    ("PubkeyAcceptedAlgorithms", H, ""),
    ("PubkeyAcceptedKeyTypes", H, ""),
    ("CASignatureAlgorithms", H, ""),
    ("RequiredRSASize", H, ""),
    ("AddressFamily", H, ""),
    ("BindAddress", H, ""),
    ("BindInterface", H, ""),
    ("ConnectTimeout", H, "Pairbench waits 10 s"),
    ("ConnectionAttempts", H, "Pairbench tries once"),
    ("RekeyLimit", H, ""),
    ("IPQoS", H, ""),
    ("GlobalKnownHostsFile", H, "host keys are looked up in UserKnownHostsFile and pins only"),
    ("KnownHostsCommand", H, ""),
    ("RevokedHostKeys", H, ""),
    ("CheckHostIP", H, ""),
    ("VerifyHostKeyDNS", H, ""),
    ("NoHostAuthenticationForLocalhost", H, ""),
    ("UpdateHostKeys", H, ""),
    ("ServerAliveInterval", N, "Pairbench keeps its own keepalive (2 s, 3 misses)"),
    ("ServerAliveCountMax", N, ""),
    ("TCPKeepAlive", N, ""),
    ("KeepAlive", N, ""),
    ("ProtocolKeepAlives", N, "Debian's name for ServerAliveInterval"),
    ("SetupTimeOut", N, "Debian's name for ConnectTimeout"),
    ("BatchMode", N, "Pairbench never prompts on the terminal of a run"),
    ("NumberOfPasswordPrompts", N, ""),
    ("AddKeysToAgent", N, ""),
    ("ForwardAgent", N, "benchmarks need no agent forwarding"),
    ("ForwardX11", N, ""),
    ("ForwardX11Trusted", N, ""),
    ("ForwardX11Timeout", N, ""),
    ("XAuthLocation", N, ""),
    ("LocalForward", N, "no port forwarding"),
    ("RemoteForward", N, ""),
    ("DynamicForward", N, ""),
    ("GatewayPorts", N, ""),
    ("ExitOnForwardFailure", N, ""),
    ("ClearAllForwardings", N, ""),
    ("PermitRemoteOpen", N, ""),
    ("StreamLocalBindMask", N, ""),
    ("StreamLocalBindUnlink", N, ""),
    ("Tunnel", N, ""),
    ("TunnelDevice", N, ""),
    ("RemoteCommand", N, "Pairbench runs its own commands"),
    ("RequestTTY", N, "Pairbench runs commands without a terminal"),
    ("SessionType", N, ""),
    ("StdinNull", N, ""),
    ("ForkAfterAuthentication", N, ""),
    ("LocalCommand", N, ""),
    ("PermitLocalCommand", N, ""),
    ("SendEnv", N, "Pairbench sets the environment of its commands itself"),
    ("SetEnv", N, ""),
    ("EscapeChar", N, ""),
    ("EnableEscapeCommandline", N, ""),
    ("ControlMaster", N, "Pairbench keeps one connection per host itself"),
    ("ControlPath", N, ""),
    ("ControlPersist", N, ""),
    ("Compression", N, "off, so figures are not changed by compression"),
    ("HashKnownHosts", N, "Pairbench pins keys in its library, not in known_hosts"),
    ("FingerprintHash", N, "fingerprints are shown as SHA256"),
    ("VisualHostKey", N, ""),
    ("LogLevel", N, ""),
    ("LogVerbose", N, ""),
    ("SyslogFacility", N, ""),
    ("ChannelTimeout", N, "newer than OpenSSH 9.2"),
    ("ObscureKeystrokeTiming", N, "newer than OpenSSH 9.2"),
    ("Tag", N, "newer than OpenSSH 9.2"),
    ("RefuseConnection", N, "newer than OpenSSH 9.2"),
    ("VersionAddendum", N, "newer than OpenSSH 9.2"),
    ("WarnWeakCrypto", N, "newer than OpenSSH 9.2"),
    ("UseKeychain", N, "macOS only"),
    ("IdentityFile2", X, "an old name of IdentityFile: read as IdentityFile"),
    ("DSAAuthentication", X, "an old name of PubkeyAuthentication"),
    ("SKeyAuthentication", X, "an old name of KbdInteractiveAuthentication"),
    ("TISAuthentication", X, "an old name of KbdInteractiveAuthentication"),
    ("Protocol", X, ""),
    ("Cipher", X, ""),
    ("FallBackToRsh", X, ""),
    ("GlobalKnownHostsFile2", X, ""),
    ("RhostsAuthentication", X, ""),
    ("UserKnownHostsFile2", X, ""),
    ("UseRoaming", X, ""),
    ("UseRsh", X, ""),
    ("UsePrivilegedPort", X, ""),
    ("AFSTokenPassing", X, ""),
    ("KerberosAuthentication", X, ""),
    ("KerberosTGTPassing", X, ""),
    ("RSAAuthentication", X, ""),
    ("RhostsRSAAuthentication", X, ""),
    ("CompressionLevel", X, ""),
)

# Keywords read under another keyword's name (readconf.c's table maps them to one opcode).
ALIASES: dict[str, str] = {
    "identityfile2": "identityfile",
    "hostbasedkeytypes": "hostbasedacceptedalgorithms",
    "pubkeyacceptedkeytypes": "pubkeyacceptedalgorithms",
    "challengeresponseauthentication": "kbdinteractiveauthentication",
    "skeyauthentication": "kbdinteractiveauthentication",
    "tisauthentication": "kbdinteractiveauthentication",
    "dsaauthentication": "pubkeyauthentication",
    "keepalive": "tcpkeepalive",
}


def canonical(keyword: str) -> str:
    """The keyword (lower case) a spelling stands for."""
    return ALIASES.get(keyword, keyword)


def known(keyword: str) -> Keyword | None:
    """The table's entry for a lower-case keyword, or None when no OpenSSH knows it."""
    return KEYWORDS.get(keyword)
