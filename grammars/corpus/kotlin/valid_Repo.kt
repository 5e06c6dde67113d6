package com.example.repo

import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow

data class User(val id: Long, val name: String, val email: String? = null)

interface UserRepo {
    suspend fun find(id: Long): User?
    fun all(): Flow<User>
}

class MemoryRepo(private val users: MutableMap<Long, User> = mutableMapOf()) : UserRepo {
    override suspend fun find(id: Long): User? = users[id]

    override fun all(): Flow<User> = flow {
        users.values.sortedBy { it.name }.forEach { emit(it) }
    }

    fun add(user: User) {
        require(user.id > 0) { "id must be positive" }
        users[user.id] = user
    }

    companion object {
        fun seeded() = MemoryRepo().apply { add(User(1, "Ada")) }
    }
}
