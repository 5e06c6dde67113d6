import 'dart:convert';

class User {
  final int id;
  final String name;
  final String? email;

  const User({required this.id, required this.name, this.email});

  factory User.fromJson(Map<String, dynamic> json) =>
      User(id: json['id'] as int, name: json['name'] as String, email: json['email']);

  Map<String, dynamic> toJson() => {'id': id, 'name': name, if (email != null) 'email': email};

  @override
  String toString() => 'User($id, $name)';
}

void main() {
  final users = [for (var i = 0; i < 3; i++) User(id: i, name: 'u$i')];
  print(jsonEncode(users.map((u) => u.toJson()).toList()));
  print(users.where((u) => u.id.isEven).length);
}
