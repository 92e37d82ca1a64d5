//! HTTP origins as the operator writes them in grants and secrets (`scheme://host[:port]`).

use std::net::IpAddr;

/// An HTTP origin, normalised: lower-case scheme and host, explicit port.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin {
    /// `http` or `https`.
    pub scheme: String,
    /// Host name or IP literal (IPv6 without brackets).
    pub host: String,
    /// Port (80/443 when not written).
    pub port: u16,
}

impl Origin {
    /// Parses `scheme://host[:port]` (a trailing `/` is allowed, nothing else).
    pub fn parse(s: &str) -> Result<Self, String> {
        let url = url::Url::parse(s).map_err(|e| format!("{s:?} is not an origin: {e}"))?;
        if !(url.path() == "/" || url.path().is_empty())
            || url.query().is_some()
            || url.fragment().is_some()
            || !url.username().is_empty()
        {
            return Err(format!(
                "{s:?} is not an origin: expected scheme://host[:port] without a path"
            ));
        }
        Self::of_url(&url)
    }

    /// The origin of a URL (http and https only).
    pub fn of_url(url: &url::Url) -> Result<Self, String> {
        let scheme = url.scheme().to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(format!("scheme {scheme} is not allowed (http, https)"));
        }
        let host = match url.host() {
            Some(url::Host::Domain(d)) => d.to_ascii_lowercase(),
            Some(url::Host::Ipv4(a)) => a.to_string(),
            Some(url::Host::Ipv6(a)) => a.to_string(),
            None => return Err(format!("{url} has no host")),
        };
        let port = url
            .port_or_known_default()
            .ok_or_else(|| format!("{url} has no port"))?;
        Ok(Origin { scheme, host, port })
    }

    /// The host as an IP address, when it is a literal.
    pub fn ip(&self) -> Option<IpAddr> {
        self.host.parse().ok()
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.host.contains(':') {
            write!(f, "{}://[{}]:{}", self.scheme, self.host, self.port)
        } else {
            write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
        }
    }
}
