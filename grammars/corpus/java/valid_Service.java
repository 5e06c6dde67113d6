package com.example.service;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

public class Service {
    private final Map<String, User> users;

    public Service(Map<String, User> users) {
        this.users = users;
    }

    public Optional<User> find(String id) {
        return Optional.ofNullable(users.get(id));
    }

    public List<String> activeNames() {
        return users.values().stream()
                .filter(User::active)
                .map(u -> u.name().toUpperCase())
                .sorted()
                .collect(Collectors.toList());
    }

    public record User(String name, boolean active) {}
}
