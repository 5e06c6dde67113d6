<?php

declare(strict_types=1);

namespace App\Http;

use App\Models\User;
use InvalidArgumentException;

final class UserController
{
    public function __construct(private readonly UserRepository $repo) {}

    public function show(int $id): array
    {
        $user = $this->repo->find($id) ?? throw new InvalidArgumentException("no user $id");
        return [
            'id' => $user->id,
            'name' => ucfirst($user->name),
            'roles' => array_map(fn (Role $r): string => $r->name, $user->roles),
        ];
    }

    public static function status(int $code): string
    {
        return match (true) {
            $code >= 500 => 'error',
            $code >= 400 => 'client',
            default => 'ok',
        };
    }
}
