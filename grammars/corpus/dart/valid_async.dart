import 'dart:async';

abstract class Repo<T> {
  Future<T?> find(int id);
}

mixin Logging {
  void log(String msg) => print('[${DateTime.now()}] $msg');
}

class MemoryRepo with Logging implements Repo<String> {
  final _data = <int, String>{1: 'one'};

  @override
  Future<String?> find(int id) async {
    log('find $id');
    await Future<void>.delayed(Duration.zero);
    return _data[id];
  }
}

Stream<int> countTo(int n) async* {
  for (var i = 1; i <= n; i++) {
    yield i;
  }
}

Future<void> run() async {
  try {
    await for (final i in countTo(3)) {
      print(i);
    }
  } on StateError catch (e) {
    print(e);
  }
}
