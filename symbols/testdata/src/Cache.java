package com.acme.cache;

import java.util.Map;

public class Cache {
    public static final int MAX_ENTRIES = 100;
    private Map<String, String> entries;

    public String lookup(String key) {
        return entries.get(key);
    }
}
