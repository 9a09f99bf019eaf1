DEFAULT_RETRIES = 3


class Session:
    """A session."""

    def merge_environment_settings(self, url, proxies):
        # merge_environment_settings is documented elsewhere
        return get_environ_proxies(url, proxies)


def get_environ_proxies(url, no_proxy=None):
    return {"url": url}
